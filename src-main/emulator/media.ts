// Inbound media: deterministic sample bytes, and the short-lived blob URLs served on a second
// origin without auth. ASSUMPTION A-MEDIA: 302 from the service to a 5-minute blob URL.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { deflateSync } from 'node:zlib';
import type { Clock } from '../core/ports';
import { sendError } from './http';
import { EmulatorError } from './errors';
import type { InboundMedia } from './model';

const BLOB_TTL_MS = 5 * 60_000;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/** A 120×80 RGB picture (sky, sun, hill), the same bytes every time, so tests can compare them. */
function samplePicture(): Buffer {
  const w = 120;
  const h = 80;
  const rows: Buffer[] = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x++) {
      const hill = y > 56 + 10 * Math.sin(x / 19);
      const sun = (x - 88) ** 2 + (y - 22) ** 2 < 130;
      const [r, g, b] = hill ? [46, 125, 50] : sun ? [255, 193, 7] : [100, 160 + Math.round(y / 2), 230];
      row.writeUInt8(r, 1 + x * 3);
      row.writeUInt8(g, 2 + x * 3);
      row.writeUInt8(b, 3 + x * 3);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const SAMPLE_PNG = samplePicture();

export function sampleBytes(type: 'image' | 'document', mimeType: string, filename: string, messageId: string): Buffer {
  if (type === 'image' && mimeType === 'image/png') return SAMPLE_PNG;
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
