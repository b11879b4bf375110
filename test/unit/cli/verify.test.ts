import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDelivery } from '../../../src-main/core/signature';
import { runCli } from '../../helpers/cli';

const SECRET = 'whsec_unit_test_secret_0123456789';
const T = 1_750_000_000;
let dir: string;
let bodyFile: string;
const body =
  '{"event":"message.received","from":"15550102000","message":{"id":"m1","type":"text","text":"hi","fromMe":false}}';

function headerArgs(h: Record<string, string>): string[] {
  return Object.entries(h).flatMap(([k, v]) => ['--header', `${k}: ${v}`]);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-verify-'));
  bodyFile = join(dir, 'body.json');
  await writeFile(bodyFile, body);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('verify (unit, synthetic deliveries)', () => {
  const env = { HOOK_SECRET: SECRET };

  it('a valid v1 delivery → exit 0 "verified" with the steps', async () => {
    const r = await runCli(
      [
        'verify',
        '--secret-env',
        'HOOK_SECRET',
        ...headerArgs(signDelivery(SECRET, body, T)),
        '--body-file',
        bodyFile,
        '--now',
        String(T + 10),
      ],
      { env },
    );
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('Verified (verified)');
    expect(r.stdout).toContain('a v1 signature matches');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('legacy header only → refused as legacy-only, like the tunnel; --allow-legacy-signature → verified-legacy-only', async () => {
    const h = signDelivery(SECRET, body, T);
    const args = [
      'verify',
      '--secret-env',
      'HOOK_SECRET',
      '--header',
      `x-service-signature: ${h['x-service-signature']}`,
      '--body-file',
      bodyFile,
      '--json',
    ];
    const refused = await runCli(args, { env });
    expect(refused.code).toBe(1);
    expect(refused.json()[0]).toMatchObject({ ok: false, reason: 'legacy-only', scheme: 'legacy' });
    const r = await runCli([...args, '--allow-legacy-signature'], { env });
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({ ok: true, reason: 'verified-legacy-only', scheme: 'legacy' });
  });

  it('an authentic body with a byte order mark, or not JSON, is valid with a note', async () => {
    const odd = join(dir, 'odd.txt');
    for (const [bytes, note] of [
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]), 'utf8-bom'],
      [Buffer.from('plain text'), 'not-json'],
    ] as const) {
      await writeFile(odd, bytes);
      const r = await runCli(
        [
          'verify',
          '--secret-env',
          'HOOK_SECRET',
          ...headerArgs(signDelivery(SECRET, bytes, T)),
          '--body-file',
          odd,
          '--now',
          String(T),
          '--json',
        ],
        { env },
      );
      expect(r.code).toBe(0);
      expect(r.json()[0]).toMatchObject({ ok: true, reason: 'verified', note });
    }
  });

  it('malformed header, missing signature, wrong secret, future timestamp → exit 1 with the reason', async () => {
    const malformed = await runCli(
      ['verify', '--secret-env', 'HOOK_SECRET', '--header', 'x-service-signature-v1: garbage', '--body-file', bodyFile],
      { env },
    );
    expect(malformed.code).toBe(1);
    expect(malformed.stdout).toContain('Refused — unreadable signature header (malformed-header)');
    expect(malformed.stderr).toContain('malformed-header');

    const missing = await runCli(
      [
        'verify',
        '--secret-env',
        'HOOK_SECRET',
        '--header',
        'content-type: application/json',
        '--body-file',
        bodyFile,
        '--json',
      ],
      { env },
    );
    expect(missing.code).toBe(1);
    expect(missing.json()[0]).toMatchObject({ ok: false, reason: 'missing-signature' });

    const wrong = await runCli(
      [
        'verify',
        '--secret-env',
        'OTHER',
        ...headerArgs(signDelivery(SECRET, body, T)),
        '--body-file',
        bodyFile,
        '--now',
        String(T),
      ],
      { env: { OTHER: 'another-secret' } },
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('signature-mismatch');

    const future = await runCli(
      [
        'verify',
        '--secret-env',
        'HOOK_SECRET',
        ...headerArgs(signDelivery(SECRET, body, T + 400)),
        '--body-file',
        bodyFile,
        '--now',
        String(T),
      ],
      { env },
    );
    expect(future.code).toBe(1);
    expect(future.stdout).toContain('future-timestamp');
  });

  it('--tolerance widens the window', async () => {
    const args = [
      'verify',
      '--secret-env',
      'HOOK_SECRET',
      ...headerArgs(signDelivery(SECRET, body, T)),
      '--body-file',
      bodyFile,
      '--now',
      String(T + 301),
    ];
    expect((await runCli(args, { env })).code).toBe(1);
    expect((await runCli([...args, '--tolerance', '600'], { env })).code).toBe(0);
  });

  it('--secret works but warns that it shows in the process list and shell history', async () => {
    const r = await runCli([
      'verify',
      '--secret',
      SECRET,
      ...headerArgs(signDelivery(SECRET, body, T)),
      '--body-file',
      bodyFile,
      '--now',
      String(T),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/process list/);
    expect(r.stderr).toMatch(/shell history/);
    expect(r.stderr).toMatch(/--secret-env/);
    expect(r.stderr).not.toContain(SECRET);
  });

  it('usage errors → exit 2: no secret, both secrets, unset env var, bad --now', async () => {
    const h = headerArgs(signDelivery(SECRET, body, T));
    expect((await runCli(['verify', ...h, '--body-file', bodyFile])).code).toBe(2);
    expect(
      (await runCli(['verify', '--secret', 'x', '--secret-env', 'HOOK_SECRET', ...h, '--body-file', bodyFile], { env }))
        .code,
    ).toBe(2);
    expect((await runCli(['verify', '--secret-env', 'UNSET_VAR', ...h, '--body-file', bodyFile], { env })).code).toBe(
      2,
    );
    expect(
      (
        await runCli(['verify', '--secret-env', 'HOOK_SECRET', ...h, '--body-file', bodyFile, '--now', 'yesterday'], {
          env,
        })
      ).code,
    ).toBe(2);
    expect((await runCli(['verify', '--secret-env', 'HOOK_SECRET', ...h], { env })).code).toBe(2);
  });

  it('an unreadable body file → exit 1', async () => {
    const r = await runCli(['verify', '--secret-env', 'HOOK_SECRET', '--body-file', join(dir, 'nope.json')], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ENOENT');
  });
});

describe('verify --header', () => {
  const env = { HOOK_SECRET: SECRET };
  const verify = (headers: string[], ...more: string[]) =>
    runCli(
      [
        'verify',
        '--secret-env',
        'HOOK_SECRET',
        ...headers.flatMap((h) => ['--header', h]),
        '--body-file',
        bodyFile,
        '--now',
        String(T),
        '--json',
        ...more,
      ],
      { env },
    );
  const v1 = (secret: string) => signDelivery(secret, body, T)['x-service-signature-v1']!;

  it('splits at the first colon and takes names in any case', async () => {
    // An unknown key of the v1 header holding a colon: split at a later colon, the name would be refused.
    const r = await verify([`X-Service-Signature-V1: ${v1(SECRET)},note=a:b`]);
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({ ok: true, reason: 'verified', scheme: 'v1' });
    const legacy = await verify(
      [`X-SERVICE-SIGNATURE:${signDelivery(SECRET, body, T)['x-service-signature']}`],
      '--allow-legacy-signature',
    );
    expect(legacy.json()[0]).toMatchObject({ ok: true, reason: 'verified-legacy-only', scheme: 'legacy' });
  });

  it('keeps a repeated header: either of two v1 headers may carry the matching signature', async () => {
    const wrong = v1('whsec_another_secret_9876543210');
    for (const pair of [
      [v1(SECRET), wrong],
      [wrong, v1(SECRET)],
    ]) {
      const r = await verify([`X-Service-Signature-V1: ${pair[0]}`, `x-service-signature-v1: ${pair[1]}`]);
      expect(r.json()[0]).toMatchObject({ ok: true, reason: 'verified' });
    }
    expect((await verify([`x-service-signature-v1: ${wrong}`])).code).toBe(1);
  });

  it.each(['no colon here', ': value', 'bad name: v'])('refuses %j as not Name: value (exit 2)', async (line) => {
    const r = await verify([line]);
    expect(r.code).toBe(2);
    const error = (JSON.parse(r.stderr) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain(`--header: expected 'Name: value', got ${JSON.stringify(line)}`);
  });
});
