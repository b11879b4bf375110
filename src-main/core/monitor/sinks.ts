// Where alerts go (the desktop notification is the Electron adapter's, electron/notifications.ts).
// The webhook sink POSTs {text, alert} — the shape chat incoming-webhooks accept — with a timeout
// and a bounded retry, and never throws into the monitor.
import { request, type Dispatcher } from 'undici';
import { backoffDelay, type BackoffPolicy } from '../backoff';
import { sleep, silentLogger, systemClock, type Clock, type Logger } from '../ports';
import { httpUrlSchema } from '../url';
import type { Alert } from './types';

export interface AlertSink {
  deliver(alert: Alert): Promise<void>;
}

/** One line for the CLI: human text, or the alert as one JSON line. */
export function formatAlertLine(alert: Alert, format: 'human' | 'json' = 'human'): string {
  if (format === 'json') return JSON.stringify(alert);
  const when = new Date(alert.at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const who = alert.agentIds.length > 0 ? alert.agentIds.join(',') : '-';
  return `${when} ${alert.urgent ? 'URGENT' : 'notice'} [${alert.kind}] ${alert.teamId}/${who}: ${alert.title}`;
}

/** The text of a chat message: the line, then the body. */
function formatAlertText(alert: Alert): string {
  return `${alert.urgent ? '🔴' : 'ℹ️'} ${alert.title}\n${alert.body}`;
}

export interface WebhookSinkOptions {
  dispatcher?: Dispatcher;
  clock?: Clock;
  logger?: Logger;
  /** Per attempt. Default 5 000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  retries?: number;
  /** Waits between attempts. Default ALERT_WEBHOOK_BACKOFF. */
  backoff?: BackoffPolicy;
}

/** Waits between alert webhook attempts: 1 s, then 2 s (doubling, exact). */
const ALERT_WEBHOOK_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 16_000, jitter: 0 };

export class WebhookAlertSink implements AlertSink {
  private readonly url: string;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** Where deliveries go, without a query (it may carry a token) — safe to show. */
  readonly target: string;

  constructor(
    url: string,
    private readonly opts: WebhookSinkOptions = {},
  ) {
    const parsed = httpUrlSchema.safeParse(url);
    if (!parsed.success) throw new RangeError(`The alert webhook URL ${parsed.error.issues[0]?.message ?? 'must be an http(s) URL'}.`);
    this.url = parsed.data;
    const u = new URL(this.url);
    this.target = `${u.origin}${u.pathname.replace(/\/[^/]{16,}/g, '/…')}`;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? silentLogger;
  }

  /** Never rejects: a failed delivery is logged (without the URL's path secrets) and dropped. */
  async deliver(alert: Alert): Promise<void> {
    await this.send(alert);
  }

  /** Resolves true when the webhook accepted the alert; never rejects. */
  async send(alert: Alert): Promise<boolean> {
    const body = JSON.stringify({ text: formatAlertText(alert), alert });
    const retries = Math.max(0, this.opts.retries ?? 2);
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(this.clock, backoffDelay(this.opts.backoff ?? ALERT_WEBHOOK_BACKOFF, attempt));
      const outcome = await this.attempt(body);
      if (outcome === 'ok') return true;
      if (outcome === 'give-up') break;
    }
    this.log.warn('alert webhook delivery failed', { target: this.target, alertId: alert.id });
    return false;
  }

  private async attempt(body: string): Promise<'ok' | 'retry' | 'give-up'> {
    const controller = new AbortController();
    const timer = this.clock.setTimeout(() => controller.abort(new Error('timeout')), this.opts.timeoutMs ?? 5000);
    try {
      const res = await request(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: controller.signal,
        dispatcher: this.opts.dispatcher,
      });
      await res.body.dump().catch(() => undefined);
      if (res.statusCode >= 200 && res.statusCode < 300) return 'ok';
      // 4xx other than 408/429 will not get better by trying again.
      if (res.statusCode >= 400 && res.statusCode < 500 && res.statusCode !== 408 && res.statusCode !== 429) return 'give-up';
      return 'retry';
    } catch {
      return 'retry';
    } finally {
      this.clock.clearTimeout(timer);
    }
  }
}

/** Collects alerts in memory (tests, the CLI's --once mode). */
export class MemoryAlertSink implements AlertSink {
  readonly alerts: Alert[] = [];
  async deliver(alert: Alert): Promise<void> {
    this.alerts.push(alert);
  }
}
