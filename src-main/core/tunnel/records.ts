// How the log's records are read back: validated loosely (a line that does not fit is skipped,
// never trusted).
import { z } from 'zod';
import { TUNNEL_REASONS, type LogRecord } from './types';

const verdictSchema = z.object({
  ok: z.boolean(),
  reason: z.enum(TUNNEL_REASONS),
  scheme: z.enum(['v1', 'legacy', 'none']),
  timestamp: z.number().optional(),
  steps: z.array(z.string()),
  note: z.enum(['not-json', 'utf8-bom']).optional(),
});
const deliverySchema = z.object({
  kind: z.literal('delivery'),
  id: z.string().min(1),
  agentId: z.string().min(1),
  receivedAt: z.number(),
  method: z.string(),
  path: z.string(),
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  bodyBase64: z.string(),
  verdict: verdictSchema,
  summary: z.object({
    event: z.string().nullable(),
    from: z.string().nullable(),
    messageId: z.string().nullable(),
    type: z.string().nullable(),
  }),
  forward: z.boolean(),
  simulated: z.boolean().optional(),
});
const attemptSchema = z.object({
  kind: z.literal('attempt'),
  id: z.string().min(1),
  deliveryId: z.string().min(1),
  at: z.number(),
  url: z.string(),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  responseBody: z.string().nullable(),
  replay: z.enum(['as-received', 're-signed']).optional(),
  resigned: z.boolean().optional(),
  aheadOf: z.string().optional(),
});
const recordSchema = z.discriminatedUnion('kind', [deliverySchema, attemptSchema]);

/** One line of a segment, or null when it does not hold a record. */
export function parseRecord(line: string): LogRecord | null {
  try {
    return recordSchema.parse(JSON.parse(line)) as LogRecord;
  } catch {
    return null;
  }
}

/** 2xx delivered; 4xx other than 408/429 is the local app's final word; anything else is retried. */
export function isFinalStatus(status: number | null): boolean {
  if (status === null) return false;
  if (status >= 200 && status <= 299) return true;
  return status >= 400 && status <= 499 && status !== 408 && status !== 429;
}
