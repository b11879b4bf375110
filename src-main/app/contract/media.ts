// tunnel.media: the file of an image/document delivery, downloaded by the main process through the
// team's ServiceClient (which sends the API key only to the service's own origin, ASSUMPTION A-MEDIA)
// into a private temp folder, read into memory (capped), and deleted again. The renderer gets bytes,
// never a URL that needs the key.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Companion } from '../companion/companion';
import { safeFileName } from '../../core/api/media';
import type { MediaDTO } from '../../../src-shared/contract';
import { AppError } from '../errors';

const MEDIA_MAX_BYTES = 25 * 1024 * 1024;

export interface MediaOptions {
  /** Parent of the temp folder (default: the OS temp dir). */
  tmpDir?: string;
  /** Largest file accepted (default 25 MiB). */
  maxBytes?: number;
}

interface MediaHints {
  filename: string | null;
  mimeType: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The event's own media description (ASSUMPTION A-INBOUND: `media` at top level or under `message`). */
function mediaHints(bodyBase64: string): MediaHints | null {
  try {
    const o = JSON.parse(Buffer.from(bodyBase64, 'base64').toString('utf8')) as {
      media?: unknown;
      message?: { media?: unknown };
    };
    const m = (o.media ?? o.message?.media) as { filename?: unknown; mimeType?: unknown } | undefined;
    if (!m || typeof m !== 'object') return null;
    return { filename: str(m.filename), mimeType: str(m.mimeType) };
  } catch {
    return null;
  }
}

const MEDIA_TYPES = new Set(['image', 'document']);

function describeSize(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

export async function deliveryMedia(c: Companion, id: string, opts: MediaOptions = {}): Promise<MediaDTO> {
  const maxBytes = opts.maxBytes ?? MEDIA_MAX_BYTES;
  const d = c.tunnel().get(id);
  if (!d) throw new AppError('not-found', 'NO_DELIVERY', `No delivery ${id} in the tunnel's log.`);
  const hints = mediaHints(d.bodyBase64);
  const type = d.summary.type;
  if (!(type !== null && MEDIA_TYPES.has(type)) && hints === null) {
    throw new AppError(
      'invalid-request',
      'NO_MEDIA',
      `Delivery ${id} is ${type ? `a ${type} message` : 'not a message'} without a file; only image and document deliveries have one.`,
    );
  }
  const messageId = d.summary.messageId;
  if (!messageId)
    throw new AppError(
      'invalid-request',
      'NO_MESSAGE_ID',
      `Delivery ${id} has no message id to download its file with.`,
    );

  const teams = c.listTeams().filter((t) => t.agents.some((a) => a.agentId === d.agentId));
  if (teams.length === 0)
    throw new AppError(
      'not-found',
      'NO_TEAM_FOR_AGENT',
      `No team has agent "${d.agentId}"; add it to download its media.`,
    );
  if (teams.length > 1) {
    throw new AppError(
      'invalid-request',
      'AMBIGUOUS_AGENT',
      `Agent "${d.agentId}" is in more than one team (${teams.map((t) => t.label).join(', ')}); the media cannot be fetched with the right key.`,
    );
  }
  const team = teams[0]!;
  const client = await c.clientFor(team.id);

  const dir = await mkdtemp(path.join(opts.tmpDir ?? tmpdir(), 'cc-media-'));
  const abort = new AbortController();
  let tooBig = false;
  const refuse = (): never => {
    throw new AppError(
      'invalid-request',
      'MEDIA_TOO_LARGE',
      `The file is larger than ${describeSize(maxBytes)}; download it with the CLI (channel-companion media) instead.`,
    );
  };
  try {
    let result: Awaited<ReturnType<typeof client.downloadMedia>>;
    try {
      result = await client.downloadMedia(d.agentId, messageId, dir, {
        signal: abort.signal,
        onProgress: (received, total) => {
          if (!tooBig && (received > maxBytes || (total !== null && total > maxBytes))) {
            tooBig = true;
            abort.abort();
          }
        },
      });
    } catch (e) {
      if (tooBig) refuse();
      throw e;
    }
    if ((await stat(result.path)).size > maxBytes) refuse();
    const data = await readFile(result.path);
    const filename =
      safeFileName(result.filename ?? '') ?? safeFileName(hints?.filename ?? '') ?? path.basename(result.path);
    const mimeType = result.contentType?.split(';')[0]?.trim() || hints?.mimeType || 'application/octet-stream';
    return { filename, mimeType, bytes: data.length, dataBase64: data.toString('base64') };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
