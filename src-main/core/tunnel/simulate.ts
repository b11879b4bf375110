// Simulated inbound messages (like `stripe trigger`): a `message.received` event composed exactly
// as the emulator composes it, signed with the agent's secret.
// ASSUMPTION A-INBOUND: {event, from, message:{id,type,text,fromMe,caption?}, media?:{url,mimeType,filename,size}, timestamp}.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { signDelivery } from '../signature';
import { SIMULATED_HEADER } from './headers';

const simulateInputSchema = z
  .strictObject({
    type: z.enum(['text', 'image', 'document']).default('text'),
    /** E.164, with or without '+'. */
    from: z
      .string()
      .regex(/^\+?[1-9]\d{5,14}$/, 'expected an E.164 phone number like 15550100002')
      .default('15550100002'),
    text: z.string().max(65_536).optional(),
    caption: z.string().max(4096).optional(),
    filename: z.string().min(1).max(255).optional(),
    mimeType: z
      .string()
      .regex(/^[\w.+-]+\/[\w.+-]+$/, 'expected a MIME type like image/png')
      .optional(),
    size: z.number().int().nonnegative().optional(),
    messageId: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/)
      .optional(),
  })
  .strip();
export type SimulateInput = z.input<typeof simulateInputSchema>;

export interface ComposeContext {
  agentId: string;
  nowMs: number;
  /** Base of the media download URL (the service's base URL); default a placeholder. */
  serviceBaseUrl?: string;
  newMessageId?: () => string;
}

export function composeInboundEvent(input: SimulateInput, ctx: ComposeContext): Record<string, unknown> {
  const p = simulateInputSchema.parse(input);
  const id = p.messageId ?? (ctx.newMessageId ?? (() => `wamid_sim_${randomBytes(10).toString('hex')}`))();
  const from = p.from.replace(/^\+/, '');
  const text = p.type === 'text' ? (p.text ?? 'Hello from channel-companion trigger') : (p.text ?? p.caption ?? '');
  const base = (ctx.serviceBaseUrl ?? 'https://service.invalid').replace(/\/+$/, '');
  const media =
    p.type === 'text'
      ? null
      : {
          url: `${base}/api/v1/agents/${encodeURIComponent(ctx.agentId)}/whatsapp/media/${encodeURIComponent(id)}`,
          mimeType: p.mimeType ?? (p.type === 'image' ? 'image/png' : 'application/pdf'),
          filename: p.filename ?? (p.type === 'image' ? `image-${id}.png` : `document-${id}.pdf`),
          size: p.size ?? 1024,
        };
  return {
    event: 'message.received',
    from,
    message: { id, type: p.type, text, fromMe: false, ...(p.caption !== undefined ? { caption: p.caption } : {}) },
    ...(media ? { media } : {}),
    timestamp: new Date(ctx.nowMs).toISOString(),
  };
}

/** The raw bytes and the headers the service would send for an event. */
export function signedRequest(
  event: unknown,
  secret: string,
  nowMs: number,
): { body: Buffer; headers: Record<string, string> } {
  const body = Buffer.from(JSON.stringify(event), 'utf8');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      ...signDelivery(secret, body, Math.floor(nowMs / 1000)),
      [SIMULATED_HEADER]: '1',
    },
  };
}
