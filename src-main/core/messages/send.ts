// The one path of a send from this install: the client's send (its budget, queue and retries),
// then the outcome appended to the send log, whether it went out or failed. A send stopped by the
// person (aborted) is not a send and is not recorded. A failure to write the log never turns a send
// that went out into an error: it is reported to onLogError.
import type { SendOptions, ServiceClient } from '../api/service';
import type { SendRequest, SendResult } from '../api/types';
import { isServiceError } from '../api/errors';
import type { SendError, SendKind, SendLog, SendRecord, SendVia } from './send-log';

export interface RecordedSend {
  log: SendLog;
  teamId: string | null;
  agentId: string;
  via: SendVia;
  /** The window's reference of the send (kept in the log so the window finds its send there). */
  clientRef?: string;
  /** The team hub's member who sends it (kept in the log with the send). */
  sentBy?: string;
  /** ms epoch */
  now(): number;
  /** The record was stored (the app publishes it). */
  onRecorded?(r: SendRecord): void;
  /** Writing the log failed (the send itself is unaffected). */
  onLogError?(err: unknown): void;
}

function sendKind(req: SendRequest): SendKind {
  if (req.imageUrl !== undefined) return 'image';
  if (req.documentUrl !== undefined) return 'document';
  return 'text';
}

/** The error as the log keeps it: kind, code and the client's message (never the text sent). */
function sendErrorOf(err: unknown): SendError {
  if (isServiceError(err)) {
    const e: SendError = { kind: err.kind, code: err.code, message: err.message };
    if (err.rateLimit.limit !== undefined) e.limit = err.rateLimit.limit;
    return e;
  }
  return { kind: 'error', code: 'ERROR', message: err instanceof Error ? err.message : String(err) };
}

function isAborted(err: unknown): boolean {
  return isServiceError(err) && err.kind === 'aborted';
}

export async function sendAndRecord(
  client: Pick<ServiceClient, 'send'>,
  req: SendRequest,
  opts: SendOptions,
  rec: RecordedSend,
): Promise<SendResult> {
  const base: Omit<SendRecord, 'id' | 'at'> = {
    teamId: rec.teamId,
    agentId: rec.agentId,
    to: req.to,
    kind: sendKind(req),
    via: rec.via,
  };
  if (rec.clientRef !== undefined) base.clientRef = rec.clientRef;
  if (rec.sentBy !== undefined) base.sentBy = rec.sentBy;
  if (req.text !== undefined) base.text = req.text;
  const mediaUrl = req.imageUrl ?? req.documentUrl;
  if (mediaUrl !== undefined) base.mediaUrl = mediaUrl;
  if (req.documentFilename !== undefined) base.filename = req.documentFilename;
  const store = async (outcome: Partial<SendRecord>): Promise<void> => {
    try {
      const r = await rec.log.append({ ...base, ...outcome, at: rec.now() });
      rec.onRecorded?.(r);
    } catch (err) {
      rec.onLogError?.(err);
    }
  };
  let result: SendResult;
  try {
    result = await client.send(rec.agentId, req, opts);
  } catch (err) {
    if (!isAborted(err)) await store({ error: sendErrorOf(err) });
    throw err;
  }
  await store({ messageId: result.messageId, status: result.status, to: result.to || req.to });
  return result;
}
