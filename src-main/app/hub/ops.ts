// What a hub replica tells its operators: Prometheus metrics (the companion's, plus the replica's own:
// leases held, clients, queue depth) and structured logs (`hub --log-format json`: one JSON object per
// line with the level, the message, the replica and the fields; never a secret, a token or a URL's
// password).
import { Gauge, Registry, type OpenMetricsContentType } from 'prom-client';
import type { Logger } from '../../core/ports';
import { redactUrl } from '../../core/url';

const P = 'channel_companion_hub_';

export interface HubGaugeSources {
  /** Agents whose poll lease this replica holds. */
  leasesHeld(): number;
  /** Event streams open on this replica. */
  clients(): number;
  /** Work waiting here: requests being answered plus health and incident changes not yet written. */
  queueDepth(): number;
  /** Seconds from a team event's commit to this replica reading it (the fan-out's; absent: not measured). */
  eventLagSeconds?(): number;
}

/** The replica's metrics; `registry` takes more (the event fan-out's lag). */
export class HubMetrics {
  readonly registry = new Registry<OpenMetricsContentType>();

  constructor(
    s: HubGaugeSources,
    private readonly companion: { metrics(): Promise<string>; readonly contentType: string },
  ) {
    this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name: `${P}${name}`,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge('leases_held', 'Agents whose poll lease this replica holds (it alone polls them).', () => s.leasesHeld());
    gauge('clients', 'Event streams (clients listening) open on this replica.', () => s.clients());
    gauge(
      'queue_depth',
      'Work waiting on this replica: requests being answered plus health and incident changes not yet written to Postgres.',
      () => s.queueDepth(),
    );
    const lag = s.eventLagSeconds?.bind(s);
    if (lag)
      gauge('event_lag_seconds', "Seconds from a team event's commit to this replica reading it (hub_events).", lag);
  }

  /** The companion's exposition followed by the replica's own (one OpenMetrics text). */
  async render(): Promise<{ contentType: string; body: string }> {
    const [own, hub] = await Promise.all([this.companion.metrics(), this.registry.metrics()]);
    const cut = (t: string) => {
      const eof = t.lastIndexOf('# EOF');
      return eof >= 0 ? t.slice(0, eof) : t;
    };
    return { contentType: this.companion.contentType, body: `${cut(own)}${cut(hub)}# EOF\n` };
  }
}

/** Field names whose values are never logged. */
const SECRET_FIELD = /token|secret|password|passwd|authorization|api[-_]?key|cookie|credential/i;

/** A value safe to log: secrets' fields hidden, a URL's credentials and token-like parts redacted. */
function safe(name: string, value: unknown): unknown {
  if (SECRET_FIELD.test(name)) return '[redacted]';
  if (typeof value === 'string') return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? redactUrl(value) : redactInText(value);
  if (Array.isArray(value)) return value.map((v) => safe('', v));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, safe(k, v)]));
  return value;
}

/** URLs inside a message (an error text) with their credentials and tokens redacted. */
function redactInText(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi, (u) => redactUrl(u));
}

/** One JSON object per line: the fields, then time, level, msg and replica (which no field overrides). */
export function jsonLogger(write: (line: string) => void, replica: string, clock: () => number = Date.now): Logger {
  const log =
    (level: 'info' | 'warn' | 'error') =>
    (msg: string, fields: Record<string, unknown> = {}): void => {
      const line = {
        ...(safe('', fields) as Record<string, unknown>),
        time: new Date(clock()).toISOString(),
        level,
        msg: redactInText(msg),
        replica,
      };
      write(`${JSON.stringify(line)}\n`);
    };
  return { info: log('info'), warn: log('warn'), error: log('error') };
}
