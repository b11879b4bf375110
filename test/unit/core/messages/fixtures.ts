// Deliveries and sends as the message store receives them, for the store's tests.
import type { StoredDelivery } from '../../../../src-main/core/tunnel';

export const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);
export const DAY = 24 * 3600_000;

let n = 0;

/** A verified message.received delivery of `agentId`, received at `receivedAt`. */
export function delivery(
  o: {
    id: string;
    from: string;
    text?: string;
    receivedAt: number;
    agentId?: string;
    /** The event's own timestamp (default: the receive time). */
    eventAt?: number;
    fromMe?: boolean;
    to?: string;
    type?: string;
    caption?: string;
    media?: Record<string, unknown>;
  },
  over: Partial<StoredDelivery> = {},
): StoredDelivery {
  n++;
  const agentId = o.agentId ?? 'agent-a';
  const message: Record<string, unknown> = {
    id: o.id,
    type: o.type ?? 'text',
    text: o.text ?? '',
    fromMe: o.fromMe === true,
  };
  if (o.to !== undefined) message.to = o.to;
  if (o.caption !== undefined) message.caption = o.caption;
  if (o.media !== undefined) message.media = o.media;
  const body = {
    event: 'message.received',
    from: o.from,
    message,
    timestamp: new Date(o.eventAt ?? o.receivedAt).toISOString(),
  };
  return {
    kind: 'delivery',
    id: `dlv_${String(n).padStart(6, '0')}`,
    agentId,
    receivedAt: o.receivedAt,
    method: 'POST',
    path: `/hooks/${agentId}`,
    headers: { 'content-type': 'application/json' },
    bodyBase64: Buffer.from(JSON.stringify(body)).toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', steps: [] },
    summary: { event: 'message.received', from: o.from, messageId: o.id, type: o.type ?? 'text' },
    forward: false,
    ...over,
  };
}
