// The ngrok exposure over a stubbed @ngrok/ngrok (what it is asked, URL, stop, errors in words,
// the token never in a message, a session that never comes up), and over the real library with a
// bogus token: a clear error, not a hang.
import { describe, expect, it } from 'vitest';
import { ExposeError } from '../../../../src-main/core/expose/errors';
import { startNgrokExposure } from '../../../../src-main/core/expose/ngrok';
import type { NgrokLoader } from '../../../../src-main/core/expose/ngrok';

type NgrokModule = Awaited<ReturnType<NgrokLoader>>;
type NgrokListener = Awaited<ReturnType<NgrokModule['forward']>>;

const TOKEN = '2abcDEFghiJKLmnoPQRstuVWX_yz0123456789abcdEFGH';

function stub(forward: NgrokModule['forward']): { load: () => Promise<NgrokModule>; calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    load: async () => ({
      forward: (cfg) => {
        calls.push(cfg);
        return forward(cfg);
      },
    }),
  };
}

function listener(url: string | null): NgrokListener & { closed: number } {
  const l = { closed: 0, url: () => url, close: async () => void l.closed++ };
  return l;
}

async function failure(p: Promise<unknown>): Promise<ExposeError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ExposeError);
  return e as ExposeError;
}

describe('startNgrokExposure over a stubbed module', () => {
  it('forwards the loopback port with the authtoken (and domain), answers its URL, closes on stop', async () => {
    const l = listener('https://ab12.ngrok-free.app/');
    const s = stub(async () => l);
    const x = await startNgrokExposure({ port: 4567, authtoken: TOKEN, domain: 'me.ngrok.app', load: s.load });
    expect(s.calls).toEqual([{ addr: '127.0.0.1:4567', authtoken: TOKEN, domain: 'me.ngrok.app' }]);
    expect(x.url).toBe('https://ab12.ngrok-free.app');
    await x.stop();
    expect(l.closed).toBe(1);
  });

  it.each([
    [
      'failed to connect session: authentication failed: The authtoken you specified does not look like a proper ngrok authtoken. ERR_NGROK_105',
      'authtoken-rejected',
      /secret set ngrok-authtoken/,
    ],
    ['failed to connect session: failed to establish tcp connection', 'no-network', /internet connection/],
    ['failed to start listener: the domain is not reserved', 'failed', /domain/],
  ])('puts %j in words (%s) with what to do', async (message, code, hint) => {
    const s = stub(async () => {
      throw Object.assign(new Error(`${message} (token ${TOKEN})`), { code: 'GenericFailure' });
    });
    const e = await failure(startNgrokExposure({ port: 1, authtoken: TOKEN, load: s.load }));
    expect(e.code).toBe(code);
    expect(e.hint).toMatch(hint);
    expect(e.hint).toMatch(/local receiver keeps working/);
    expect(`${e.message} ${e.hint}`).not.toContain(TOKEN);
  });

  it('reads errorCode when ngrok gives one', async () => {
    const s = stub(async () => {
      throw Object.assign(new Error('session closed'), { errorCode: 'ERR_NGROK_107' });
    });
    expect((await failure(startNgrokExposure({ port: 1, authtoken: TOKEN, load: s.load }))).code).toBe(
      'authtoken-rejected',
    );
  });

  it('gives up after the timeout, and closes a session that comes up later', async () => {
    const l = listener('https://late.ngrok.app');
    let release: () => void = () => undefined;
    const s = stub(() => new Promise((resolve) => (release = () => resolve(l))));
    const e = await failure(startNgrokExposure({ port: 1, authtoken: TOKEN, timeoutMs: 50, load: s.load }));
    expect(e.code).toBe('timeout');
    expect(e.message).toContain('within 50 ms');
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(l.closed).toBe(1);
  });

  it('a module that cannot be loaded is an error in words', async () => {
    const e = await failure(
      startNgrokExposure({
        port: 1,
        authtoken: TOKEN,
        load: async () => {
          throw new Error('Cannot find module @ngrok/ngrok-linux-x64-gnu');
        },
      }),
    );
    expect(e.code).toBe('failed');
    expect(e.message).toContain('could not be loaded');
    expect(e.hint).toMatch(/--expose-cmd/);
  });

  it('a session without a URL is closed and reported', async () => {
    const l = listener(null);
    const e = await failure(startNgrokExposure({ port: 1, authtoken: TOKEN, load: stub(async () => l).load }));
    expect(e.message).toContain('gave no URL');
    expect(l.closed).toBe(1);
  });
});

describe('startNgrokExposure over the real @ngrok/ngrok', () => {
  // The test's own time limit (20 s) is above the exposure's (15 s): a hang fails the test.
  it('a bogus authtoken (and here, no network) ends in a clear error, never a hang', async () => {
    const e = await failure(
      startNgrokExposure({ port: 9, authtoken: 'bogus_token_for_a_test_0123456789', timeoutMs: 15_000 }),
    );
    // Without network: no-network (or timeout when name lookups hang); with network: the token is refused.
    expect(['no-network', 'authtoken-rejected', 'timeout']).toContain(e.code);
    if (e.code === 'timeout') expect(e.message).toContain('within 15 s');
    expect(e.message).not.toContain('bogus_token_for_a_test_0123456789');
    expect(e.hint).toMatch(/local receiver keeps working/);
  }, 20_000);
});
