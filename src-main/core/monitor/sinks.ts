// Where alerts go (the desktop notification is the Electron adapter's, electron/notifications.ts;
// Alertmanager's is alertmanager.ts). The webhook sink POSTs {text, alert} — the shape chat
// incoming-webhooks accept — with a timeout and a bounded retry, and never throws into the monitor.
import { request, type Dispatcher } from 'undici';
import { backoffDelay, type BackoffPolicy } from '../backoff';
import { sleep, silentLogger, systemClock, type Clock, type Logger } from '../ports';
import { httpUrlSchema, redactUrl } from '../url';
import type { Alert } from './types';
import { alertWords } from './words';

export interface AlertSink {
  deliver(alert: Alert): Promise<void>;
}

/** The text of a chat message: the alert's line, then its body. */
function formatAlertText(alert: Alert): string {
  const w = alertWords(alert);
  return `${alert.urgent ? '🔴' : 'ℹ️'} ${w.line}\n${w.body}`;
}

export interface PostOptions {
  dispatcher?: Dispatcher;
  clock?: Clock;
  /** Per attempt. Default 5 000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  retries?: number;
  /** Waits between attempts. Default ALERT_POST_BACKOFF. */
  backoff?: BackoffPolicy;
}

export type WebhookSinkOptions = PostOptions & { logger?: Logger };

/** Waits between attempts of an alert POST: 1 s, then 2 s (doubling, exact). */
const ALERT_POST_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 16_000, jitter: 0 };

/**
 * POSTs a JSON body with a timeout and a bounded retry (4xx other than 408/429 is not retried).
 * Resolves true when the receiver accepted it; never rejects.
 */
async function postJson(url: string, body: string, opts: PostOptions = {}): Promise<boolean> {
  const clock = opts.clock ?? systemClock;
  const retries = Math.max(0, opts.retries ?? 2);
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) await sleep(clock, backoffDelay(opts.backoff ?? ALERT_POST_BACKOFF, attempt));
    const outcome = await postOnce(url, body, clock, opts);
    if (outcome === 'ok') return true;
    if (outcome === 'give-up') break;
  }
  return false;
}

/** One POST of a JSON body: taken ('ok'), worth trying again ('retry'), or refused as bad ('give-up'); never rejects. */
export async function postOnce(
  url: string,
  body: string,
  clock: Clock,
  opts: PostOptions,
): Promise<'ok' | 'retry' | 'give-up'> {
  const controller = new AbortController();
  const timer = clock.setTimeout(() => controller.abort(new Error('timeout')), opts.timeoutMs ?? 5000);
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: controller.signal,
      dispatcher: opts.dispatcher,
    });
    await res.body.dump().catch(() => undefined);
    if (res.statusCode >= 200 && res.statusCode < 300) return 'ok';
    // 4xx other than 408/429 will not get better by trying again.
    if (res.statusCode >= 400 && res.statusCode < 500 && res.statusCode !== 408 && res.statusCode !== 429)
      return 'give-up';
    return 'retry';
  } catch {
    return 'retry';
  } finally {
    clock.clearTimeout(timer);
  }
}

export class WebhookAlertSink implements AlertSink {
  private readonly url: string;
  private readonly log: Logger;
  /** Where deliveries go, without a query (it may carry a token) — safe to show. */
  readonly target: string;

  constructor(
    url: string,
    private readonly opts: WebhookSinkOptions = {},
  ) {
    const parsed = httpUrlSchema.safeParse(url);
    if (!parsed.success)
      throw new RangeError(`The alert webhook URL ${parsed.error.issues[0]?.message ?? 'must be an http(s) URL'}.`);
    this.url = parsed.data;
    this.target = redactUrl(this.url);
    this.log = opts.logger ?? silentLogger;
  }

  /** Never rejects: a failed delivery is logged (without the URL's path secrets) and dropped. */
  async deliver(alert: Alert): Promise<void> {
    await this.send(alert);
  }

  /** Resolves true when the webhook accepted the alert; never rejects. */
  async send(alert: Alert): Promise<boolean> {
    const ok = await postJson(this.url, JSON.stringify({ text: formatAlertText(alert), alert }), this.opts);
    if (!ok) this.log.warn('alert webhook delivery failed', { target: this.target, alertId: alert.id });
    return ok;
  }
}
