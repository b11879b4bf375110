import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsageError } from '../../../src-main/cli/errors';
import { intString, onOff, parseFlags, phone, recipient } from '../../../src-main/cli/flags';
import { baseUrlSchema, httpUrlSchema } from '../../../src-main/core/url';
import { runCli } from '../../helpers/cli';

describe('flag schemas', () => {
  it('names the flag in kebab case in the usage error', () => {
    const schema = z.object({ readReceipts: onOff });
    expect(() => parseFlags(schema, { readReceipts: 'yes' })).toThrow(UsageError);
    expect(() => parseFlags(schema, { readReceipts: 'yes' })).toThrow(/--read-receipts: expected on or off/);
    expect(parseFlags(schema, { readReceipts: 'on' })).toEqual({ readReceipts: true });
  });

  it('recipients are normalised locally; garbage is rejected with the reason', () => {
    const s = z.object({ to: recipient });
    expect(parseFlags(s, { to: '+1 (555) 010-2000' })).toEqual({ to: '+15550102000' });
    expect(parseFlags(s, { to: '15550102000@s.whatsapp.net' })).toEqual({ to: '15550102000@s.whatsapp.net' });
    expect(() => parseFlags(s, { to: 'call me' })).toThrow(/--to: .*letters/);
    expect(() => parseFlags(s, { to: '0555 010' })).toThrow(/--to:/);
    expect(parseFlags(z.object({ phone }), { phone: '+15550102000' })).toEqual({ phone: '15550102000' });
  });

  it('numbers and URLs', () => {
    const n = intString(0, 65535);
    expect(n.parse('8080')).toBe(8080);
    expect(n.safeParse('-1').success).toBe(false);
    expect(n.safeParse('65536').success).toBe(false);
    expect(n.safeParse('1e3').success).toBe(false);
    const urls = z.object({ forwardTo: httpUrlSchema, baseUrl: baseUrlSchema });
    expect(parseFlags(urls, { forwardTo: ' https://a.test/x ', baseUrl: 'https://b.test/api/' })).toEqual({
      forwardTo: 'https://a.test/x',
      baseUrl: 'https://b.test/api',
    });
    expect(() => parseFlags(urls, { forwardTo: 'javascript:alert(1)', baseUrl: 'https://b.test' })).toThrow(
      /--forward-to: must be an http\(s\) URL, not javascript:/,
    );
    expect(() => parseFlags(urls, { forwardTo: 'not a url', baseUrl: 'https://b.test' })).toThrow(
      /--forward-to: is not a valid URL/,
    );
    expect(() => parseFlags(urls, { forwardTo: 'https://a.test', baseUrl: 'https://b.test/?k=1' })).toThrow(
      /--base-url: must not have a query/,
    );
  });
});

describe('redaction of values given to unknown flags', () => {
  it('hides --flag=value but keeps the flag name', async () => {
    const secret = await runCli(['status', '--api-key=s3cr3t']);
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain("error: unknown option '--api-key=…'");
    expect(secret.stderr).not.toContain('s3cr3t');
    expect((await runCli(['status', '--bogus'])).stderr).toContain("error: unknown option '--bogus'");
  });
});
