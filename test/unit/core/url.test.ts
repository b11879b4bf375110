import { describe, expect, it } from 'vitest';
import {
  baseUrlSchema,
  httpUrlProblem,
  httpUrlSchema,
  isHttpUrl,
  isRedactedUrl,
  redactCredentials,
  redactUrl,
  storedUrlSchema,
} from '../../../src-main/core/url';

const messages = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  r.success ? [] : r.error!.issues.map((i) => i.message);

describe('httpUrlSchema', () => {
  it('accepts absolute http(s) URLs, trimmed, credentials and queries included', () => {
    expect(httpUrlSchema.parse(' https://a.test/x?y=1#z ')).toBe('https://a.test/x?y=1#z');
    expect(httpUrlSchema.parse('http://u:p@127.0.0.1:4000/hook')).toBe('http://u:p@127.0.0.1:4000/hook');
  });

  it('names what is wrong, without repeating the URL', () => {
    expect(messages(httpUrlSchema.safeParse('ftp://a.test/secret-token'))).toEqual([
      'must be an http(s) URL, not ftp:',
    ]);
    expect(messages(httpUrlSchema.safeParse('javascript:alert(1)'))).toEqual([
      'must be an http(s) URL, not javascript:',
    ]);
    expect(messages(httpUrlSchema.safeParse('/relative/path'))[0]).toMatch(
      /^is not a valid URL \(expected an absolute http\(s\) URL/,
    );
    expect(messages(httpUrlSchema.safeParse(`https://a.test/${'x'.repeat(2048)}`))).toEqual([
      'must be at most 2048 characters',
    ]);
    expect(httpUrlSchema.safeParse(42).success).toBe(false);
    for (const m of messages(httpUrlSchema.safeParse('ftp://a.test/secret-token')))
      expect(m).not.toContain('secret-token');
  });
});

describe('storedUrlSchema', () => {
  it('refuses a user or password', () => {
    expect(storedUrlSchema.parse('https://hooks.test/T1/abc')).toBe('https://hooks.test/T1/abc');
    expect(messages(storedUrlSchema.safeParse('https://user:pw@hooks.test/x'))).toEqual([
      'must not contain a user or password',
    ]);
  });
});

describe('baseUrlSchema', () => {
  it('normalises to origin + path without a trailing slash', () => {
    expect(baseUrlSchema.parse(' https://svc.test/ ')).toBe('https://svc.test');
    expect(baseUrlSchema.parse('http://127.0.0.1:8080/api/v0//')).toBe('http://127.0.0.1:8080/api/v0');
  });

  it('refuses credentials, a query or a fragment', () => {
    expect(messages(baseUrlSchema.safeParse('https://u:p@svc.test'))).toEqual(['must not contain a user or password']);
    expect(messages(baseUrlSchema.safeParse('https://svc.test/?a=1'))).toEqual(['must not have a query or fragment']);
    expect(messages(baseUrlSchema.safeParse('https://svc.test/#x'))).toEqual(['must not have a query or fragment']);
  });
});

describe('httpUrlProblem and isHttpUrl', () => {
  it('null when fine; the same phrases the schemas use', () => {
    expect(httpUrlProblem('https://a.test')).toBeNull();
    expect(httpUrlProblem('mailto:x@a.test')).toBe('must be an http(s) URL, not mailto:');
    expect(httpUrlProblem('https://u@a.test', { noCredentials: true })).toBe('must not contain a user or password');
    expect(isHttpUrl(new URL('https://a.test'))).toBe(true);
    expect(isHttpUrl(new URL('file:///etc/passwd'))).toBe(false);
  });
});

describe('redactCredentials', () => {
  it.each([
    ['http://user:pass@host:8/x?y=1', 'http://***@host:8/x?y=1'],
    ['http://u:p@a@host/', 'http://***@host/'],
    ['http:u:p@host', 'http:***@host'],
    ['HTTPS://U:P@H', 'HTTPS://***@H'],
    ['http://token@host', 'http://***@host'],
  ])('%s → %s (no user or password left in what the URL parser reads)', (url, shown) => {
    expect(redactCredentials(url)).toBe(shown);
    const u = new URL(redactCredentials(url));
    expect(u.password).toBe('');
    expect(u.username).toBe('***');
  });
  it.each(['http://host/a@b', 'http://host?x=a@b', 'http://host#a@b', 'https://h.example/p'])(
    'leaves %s as it is',
    (url) => {
      expect(redactCredentials(url)).toBe(url);
    },
  );
});

describe('redactUrl', () => {
  it.each([
    ['https://user:pw@host/in?token=SECRET', 'https://***@host/in?token=…'],
    ['https://host/hooks/0123456789abcdef0123?a=1&b=&SECRET', 'https://host/hooks/…?a=…&b=…&…'],
    ['https://host/p?0123456789abcdefSECRET=x#frag', 'https://host/p?…=…#…'],
    ['http://127.0.0.1:4000/hooks/a1', 'http://127.0.0.1:4000/hooks/a1'],
    ['not a url', '…'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
    if (shown !== url) expect(isRedactedUrl(shown)).toBe(true);
    if (shown !== '…') expect(redactUrl(shown)).toBe(shown);
  });
  it('leaves the segments it is told to keep (an agent id), and says a URL it left whole is not redacted', () => {
    expect(redactUrl('https://h/hooks/agent-sales-eu-west-1?k=v', ['agent-sales-eu-west-1'])).toBe(
      'https://h/hooks/agent-sales-eu-west-1?k=…',
    );
    expect(isRedactedUrl('https://h/hooks/a1')).toBe(false);
    expect(isRedactedUrl('https://***@h/hooks/a1')).toBe(true);
  });
});
