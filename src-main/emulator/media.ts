// Inbound media: deterministic sample bytes, and the short-lived blob URLs served on a second
// origin without auth. ASSUMPTION A-MEDIA: 302 from the service to a 5-minute blob URL.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../core/ports';
import { sendError } from './http';
import { EmulatorError } from './errors';
import type { InboundMedia } from './model';

const BLOB_TTL_MS = 5 * 60_000;

// A 1×1 white PNG (the bytes never change, so tests can compare them).
const TINY_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489' +
    '0000000b49444154780163f80f040009fb03fdcf0b68720000000049454e44ae426082',
  'hex',
);

export function sampleBytes(type: 'image' | 'document', mimeType: string, filename: string, messageId: string): Buffer {
  if (type === 'image' && mimeType === 'image/png') return TINY_PNG;
  if (type === 'image') return Buffer.from(`emulator image ${messageId} (${mimeType})\n`, 'utf8');
  return Buffer.from(
    `%PDF-1.4\n% Channel Companion emulator document\n% file: ${filename}\n% message: ${messageId}\n%%EOF\n`,
    'utf8',
  );
}

interface Blob {
  media: InboundMedia;
  expiresAt: number;
}

export interface BlobCounters {
  mediaRequests: number;
  mediaRequestsWithAuthorization: number;
}

export class BlobStore {
  private blobs = new Map<string, Blob>();
  readonly counters: BlobCounters = { mediaRequests: 0, mediaRequestsWithAuthorization: 0 };

  constructor(private readonly clock: Clock) {}

  /** A fresh token for these bytes, valid BLOB_TTL_MS. */
  issue(media: InboundMedia): string {
    const now = this.clock.now();
    for (const [token, blob] of this.blobs) if (blob.expiresAt + BLOB_TTL_MS <= now) this.blobs.delete(token);
    const token = randomBytes(18).toString('base64url');
    this.blobs.set(token, { media, expiresAt: now + BLOB_TTL_MS });
    return token;
  }

  clear(): void {
    this.blobs.clear();
    this.counters.mediaRequests = 0;
    this.counters.mediaRequestsWithAuthorization = 0;
  }

  /** The blob server: GET /blob/<token>. Records whether an Authorization header arrived. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.counters.mediaRequests++;
    if (req.headers.authorization !== undefined) this.counters.mediaRequestsWithAuthorization++;
    const url = new URL(req.url ?? '/', 'http://blob.invalid');
    const m = /^\/blob\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !m) {
      sendError(res, new EmulatorError(404, 'NOT_FOUND', 'no such blob'));
      return;
    }
    const blob = this.blobs.get(m[1]!);
    if (!blob) {
      sendError(res, new EmulatorError(404, 'NOT_FOUND', 'no such blob'));
      return;
    }
    if (this.clock.now() >= blob.expiresAt) {
      sendError(res, new EmulatorError(410, 'MEDIA_LINK_EXPIRED', 'this media link has expired; request a new one'));
      return;
    }
    const { bytes, mimeType, filename } = blob.media;
    res.writeHead(200, {
      'content-type': mimeType,
      'content-length': bytes.length,
      'content-disposition': `attachment; filename="${filename.replace(/["\\\r\n]/g, '_')}"`,
      'cache-control': 'private, max-age=300',
    });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  }
}
