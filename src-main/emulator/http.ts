// Small HTTP helpers shared by the service, control and blob handlers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZodType } from 'zod';
import { DEFAULT_DIALECT, type Dialect } from './dialect';
import { errorWire } from './dialect-wire';
import { EmulatorError, invalid } from './errors';

const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** An error answer, its body in the dialect's shape (ASSUMPTION A-ERROR-BODY for the default one). */
export function sendError(
  res: ServerResponse,
  err: EmulatorError,
  headers: Record<string, string> = {},
  dialect: Dialect = DEFAULT_DIALECT,
): void {
  const body = errorWire(dialect, err.code, err.message);
  res.writeHead(err.status, {
    ...headers,
    ...err.headers,
    ...(body.contentType ? { 'content-type': body.contentType } : {}),
    'content-length': Buffer.byteLength(body.text),
  });
  res.end(body.text);
}

/** Reads the whole body (bounded). Empty body → undefined. */
async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new EmulatorError(413, 'PAYLOAD_TOO_LARGE', 'request body exceeds 1 MiB');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON body; an empty body is `undefined`, bad JSON is 400 INVALID_REQUEST. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const raw = await readRaw(req);
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw invalid('request body is not valid JSON');
  }
}

/** Validates with zod; the error names the first bad field. */
export function parseWith<T>(schema: ZodType<T>, value: unknown, what = 'body'): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw invalid(describeZodError(result.error.issues, what));
}

export function describeZodError(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  what: string,
): string {
  return issues
    .slice(0, 3)
    .map((i) => {
      const path = formatPath(i.path);
      return `${path === '' ? what : path}: ${i.message}`;
    })
    .join('; ');
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

/** Splits a pathname into decoded segments; a bad escape is 400. */
export function segments(pathname: string): string[] {
  try {
    return pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    throw invalid('malformed path');
  }
}

export function bearerKey(req: IncomingMessage): string | null {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}
