// GET .../whatsapp/media/{messageId}: redirects followed by hand so the API key goes only to the
// service's own origin (ASSUMPTION A-MEDIA), body streamed to a temp file, then renamed into place.
// A connection that drops once the body has begun is said as such, with the bytes received.
import { createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { isHttpUrl } from '../url';
import { InvalidRequest, NetworkError, ServiceError } from './errors';
import { mapErrorResponse, mapTransportError } from './error-map';
import { openRequest, readText, type HttpContext, type OpenResponse } from './http';
import { headerValue } from './rate-limit';
import type { MediaDownloadOptions, MediaDownloadResult } from './service';

const MAX_REDIRECTS = 5;

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'application/pdf': '.pdf',
  'text/plain': '.txt',
  'audio/ogg': '.ogg',
  'audio/mpeg': '.mp3',
  'video/mp4': '.mp4',
  'application/zip': '.zip',
  'application/json': '.json',
};

function extensionFor(contentType: string | null): string {
  const base = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return EXTENSIONS[base] ?? '.bin';
}

/** A file name safe to create in a folder: no path parts, no control characters, not hidden/empty. */
export function safeFileName(name: string): string | null {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_')
    .trim()
    .replace(/^\.+/, '');
  if (cleaned === '' || cleaned.length > 200) return cleaned === '' ? null : cleaned.slice(0, 200);
  return cleaned;
}

/** filename*=UTF-8''… (preferred) or filename="…" from Content-Disposition. */
function filenameFromDisposition(header: string | undefined): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (star?.[2]) {
    try {
      return decodeURIComponent(star[2].trim().replace(/^"|"$/g, ''));
    } catch {
      /* fall through to the plain form */
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header);
  if (!plain) return null;
  const v = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : (plain[1] ?? '').trim();
  return v || null;
}

function originOf(url: string): string {
  return new URL(url).origin;
}

async function isDirectory(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/** Follows redirects by hand; the Authorization header goes only to the service's origin. */
async function openFollowing(ctx: HttpContext, startUrl: string, opts: MediaDownloadOptions): Promise<OpenResponse> {
  const serviceOrigin = originOf(ctx.baseUrl);
  let url = startUrl;
  for (let hop = 0; ; hop++) {
    const res = await openRequest(ctx, {
      method: 'GET',
      url,
      headers: { accept: '*/*' },
      auth: originOf(url) === serviceOrigin,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
      timeoutHeadersOnly: true,
    });
    if (res.status < 300 || res.status >= 400 || res.status === 304) return res;
    const location = headerValue(res.headers, 'location');
    await readText(ctx, res).catch(() => '');
    if (!location)
      throw new NetworkError({
        status: res.status,
        code: 'BAD_REDIRECT',
        message: `The media answer was a redirect (HTTP ${res.status}) without a Location.`,
      });
    if (hop + 1 > MAX_REDIRECTS)
      throw new NetworkError({
        status: res.status,
        code: 'TOO_MANY_REDIRECTS',
        message: `The media download was redirected more than ${MAX_REDIRECTS} times.`,
      });
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new NetworkError({ code: 'BAD_REDIRECT', message: 'The media redirect pointed to an invalid URL.' });
    }
    if (!isHttpUrl(next)) {
      throw new NetworkError({
        code: 'BAD_REDIRECT',
        message: `The media redirect pointed to a ${next.protocol} URL.`,
      });
    }
    url = next.toString();
  }
}

export async function downloadMedia(
  ctx: HttpContext,
  startUrl: string,
  messageId: string,
  destPath: string,
  opts: MediaDownloadOptions = {},
): Promise<MediaDownloadResult> {
  if (typeof destPath !== 'string' || destPath.trim() === '')
    throw new InvalidRequest({ message: 'A destination path for the media is required.' });
  const res = await openFollowing(ctx, startUrl, opts);
  if (res.status < 200 || res.status >= 300) {
    const text = await readText(ctx, res);
    throw mapErrorResponse(res.status, text, res.rateLimit, ctx.apiKey);
  }
  const contentType = headerValue(res.headers, 'content-type') ?? null;
  const lengthHeader = Number(headerValue(res.headers, 'content-length'));
  const total = Number.isFinite(lengthHeader) && lengthHeader >= 0 ? lengthHeader : null;
  const dispositionName = filenameFromDisposition(headerValue(res.headers, 'content-disposition'));
  const safeDisposition = dispositionName ? safeFileName(dispositionName) : null;

  let target = path.resolve(destPath);
  if (await isDirectory(target)) {
    const name = safeDisposition ?? `${safeFileName(messageId) ?? 'media'}${extensionFor(contentType)}`;
    target = path.join(target, name);
  }
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.part`);

  let limit: number | undefined;
  try {
    limit = await opts.beforeBody?.(total);
  } catch (err) {
    // Dropped unread: the stream's own abort error is expected here and must not go unhandled.
    res.body.on('error', () => undefined);
    res.body.destroy();
    res.release();
    throw err;
  }
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (limit !== undefined && received + chunk.length > limit) {
        cb(
          new InvalidRequest({
            code: 'MEDIA_TOO_LARGE',
            message: `The media is larger than the ${limit} bytes it may have here.`,
          }),
        );
        return;
      }
      received += chunk.length;
      opts.onProgress?.(received, total);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(res.body, counter, createWriteStream(temp, { flags: 'wx' }));
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    if (err instanceof ServiceError) throw err;
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && /^E(ACCES|NOENT|EXIST|ISDIR|NOTDIR|ROFS|NOSPC|PERM)$/.test(code)) {
      throw new InvalidRequest({
        code: 'MEDIA_WRITE_FAILED',
        message: `The media could not be written to ${target} (${code}).`,
        cause: { code },
      });
    }
    const mapped = mapTransportError(err, res.abortCause(), ctx.apiKey, res.rateLimit);
    // The answer had begun: the connection dropped during its body, not before answering.
    if (mapped instanceof NetworkError)
      throw new NetworkError({
        code: 'BODY_INTERRUPTED',
        message: `The download was cut off: the connection dropped during the body, after ${received} ${total !== null ? `of ${total} bytes` : 'bytes'} received.`,
        rateLimit: res.rateLimit,
        cause: mapped.cause,
      });
    throw mapped;
  } finally {
    res.release();
  }
  return { path: target, contentType, filename: dispositionName, bytes: received };
}
