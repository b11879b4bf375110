// An exposure by the ngrok agent library (@ngrok/ngrok, loaded on first use): one HTTPS endpoint
// forwarding to the receiver's loopback port, authenticated with the authtoken from the keychain.
// ngrok's errors are put in words (rejected authtoken, no network) with the token scrubbed out, and
// a session that does not come up in time is abandoned (closed if it comes up later).
import { formatDuration } from '../../../src-shared/duration';
import { ExposeError, LOCAL_KEEPS_WORKING } from './errors';
import { DEFAULT_EXPOSE_TIMEOUT_MS, type Exposure } from './types';

/** The part of @ngrok/ngrok used here. */
interface NgrokListener {
  url(): string | null;
  close(): Promise<void>;
}
interface NgrokModule {
  forward(config: { addr: string; authtoken: string; domain?: string }): Promise<NgrokListener>;
}
export type NgrokLoader = () => Promise<NgrokModule>;

const loadNgrok: NgrokLoader = async () => {
  const m = (await import('@ngrok/ngrok')) as unknown as NgrokModule & { default?: NgrokModule };
  return typeof m.forward === 'function' ? m : m.default!;
};

export interface NgrokExposureOptions {
  port: number;
  authtoken: string;
  /** A domain reserved in the ngrok dashboard (default: one ngrok picks). */
  domain?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  load?: NgrokLoader;
}

export const SET_AUTHTOKEN_HINT =
  'Store your authtoken once with `channel-companion secret set ngrok-authtoken` (from https://dashboard.ngrok.com/get-started/your-authtoken).';

/** ngrok's error as an ExposeError; `token` never appears in it. */
function ngrokFailure(err: unknown, token: string): ExposeError {
  const raw = err instanceof Error ? err.message : String(err);
  const code = (err as { errorCode?: unknown } | null)?.errorCode;
  const said = (token ? raw.split(token).join('…') : raw).replace(/\s+/g, ' ').trim();
  const all = `${said} ${typeof code === 'string' ? code : ''}`;
  if (/ERR_NGROK_10[5-7]|ERR_NGROK_4018|authtoken|authentication failed|unauthori[sz]ed/i.test(all)) {
    return new ExposeError(
      'authtoken-rejected',
      `ngrok refused the authtoken (${said})`,
      `${SET_AUTHTOKEN_HINT} ${LOCAL_KEEPS_WORKING}`,
    );
  }
  if (/tcp connection|dns|resolve|lookup|network|unreachable|timed? ?out|connection refused|tls handshake/i.test(all)) {
    return new ExposeError(
      'no-network',
      `could not reach ngrok: ${said}`,
      `Check this computer's internet connection (and any proxy or firewall), then start the exposure again. ${LOCAL_KEEPS_WORKING}`,
    );
  }
  return new ExposeError(
    'failed',
    `ngrok failed: ${said}`,
    `Check the message above; if a domain was given, check that it is reserved in your ngrok dashboard. ${LOCAL_KEEPS_WORKING}`,
  );
}

export async function startNgrokExposure(o: NgrokExposureOptions): Promise<Exposure> {
  if (o.signal?.aborted) throw o.signal.reason;
  const timeoutMs = o.timeoutMs ?? DEFAULT_EXPOSE_TIMEOUT_MS;
  let ngrok: NgrokModule;
  try {
    ngrok = await (o.load ?? loadNgrok)();
  } catch (e) {
    throw new ExposeError(
      'failed',
      `the ngrok library could not be loaded: ${e instanceof Error ? e.message : String(e)}`,
      `Reinstall Channel Companion, or use a tunnel program with --expose-cmd. ${LOCAL_KEEPS_WORKING}`,
    );
  }
  const pending = ngrok.forward({
    addr: `127.0.0.1:${o.port}`,
    authtoken: o.authtoken,
    ...(o.domain ? { domain: o.domain } : {}),
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const gaveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ExposeError(
            'timeout',
            `ngrok did not open a public URL within ${formatDuration(timeoutMs)}`,
            `Check this computer's internet connection (and any proxy or firewall), then start the exposure again. ${LOCAL_KEEPS_WORKING}`,
          ),
        ),
      timeoutMs,
    );
    onAbort = () => reject(o.signal!.reason);
    o.signal?.addEventListener('abort', onAbort, { once: true });
  });
  let listener: NgrokListener;
  try {
    listener = await Promise.race([pending, gaveUp]);
  } catch (e) {
    // A session that comes up after we gave up is closed at once.
    pending.then((l) => l.close()).catch(() => undefined);
    throw e instanceof ExposeError || o.signal?.aborted ? e : ngrokFailure(e, o.authtoken);
  } finally {
    clearTimeout(timer);
    if (onAbort) o.signal?.removeEventListener('abort', onAbort);
  }
  const url = listener.url();
  if (!url) {
    await listener.close().catch(() => undefined);
    throw new ExposeError(
      'failed',
      'ngrok opened a session but gave no URL',
      `Start the exposure again. ${LOCAL_KEEPS_WORKING}`,
    );
  }
  return {
    url: url.replace(/\/+$/, ''),
    // The library reconnects a lost session by itself; it never reports an end here.
    lost: new Promise<never>(() => undefined),
    stop: () => listener.close().catch(() => undefined),
  };
}
