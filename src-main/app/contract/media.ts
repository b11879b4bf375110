// The files of messages (images, documents): fetched by the main process through the team's
// ServiceClient, which sends the API key only to the service's own origin (ASSUMPTION A-MEDIA), into
// the media cache of the data folder (core/messages/media-cache.ts), and read from there.
// tunnel.media (a delivery's file), messages.media and messages.saveMedia (a message's) are this one
// path. The renderer gets bytes, never a URL that needs the key. Errors name ids, never a message's
// text or file name.
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { safeFileName } from '../../core/api/media';
import { isServiceError } from '../../core/api/errors';
import { MediaCacheError } from '../../core/messages/media-cache';
import type { CachedMedia } from '../../core/messages';
import type { StoredDelivery } from '../../core/tunnel';
import type { MediaDTO, MessageMediaDTO, SavedMediaDTO } from '../../../src-shared/contract';
import { AppError } from '../errors';
import type { Scope } from './scope';

const MEDIA_MAX_BYTES = 25 * 1024 * 1024;
/** The most a fetch of a message's file may take, from its request to its last byte. */
const MEDIA_DEADLINE_MS = 60_000;
/** The largest image answered as a data: URL for the window to draw. */
const INLINE_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Image types drawn in the window (raster only); other files are saved, never drawn. */
const DRAWN_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export interface MediaOptions {
  /** Largest file accepted (default 25 MiB). */
  maxBytes?: number;
  /** The most one fetch may take, request to last byte (default 60 s); then it is dropped. */
  deadlineMs?: number;
  /**
   * Asks where to save a file (the desktop app's save dialog); null when the person cancelled.
   * Without it, messages.saveMedia answers the bytes for the window to download.
   */
  askSavePath?(filename: string): Promise<string | null>;
  /**
   * Where tunnel.media finds a delivery by its id (a hub: its database, where every replica's deliveries
   * are); default: the tunnel log of the data folder.
   */
  delivery?(id: string): Promise<StoredDelivery>;
}

interface MediaHints {
  filename?: string | undefined;
  mimeType?: string | undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

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

/** The words for a file the service no longer has: a picture, or a file. */
function goneWords(type: string | null | undefined): string {
  return type === 'image'
    ? 'This picture is no longer available from the service.'
    : 'This file is no longer available from the service.';
}

/** An answer that means the service no longer has the file: 410, a 404 that is not about the agent, or a code that says expired/gone. */
function isGone(e: unknown): boolean {
  if (!isServiceError(e)) return false;
  if (e.status === 410 || /EXPIRED|GONE/i.test(e.code)) return true;
  return e.status === 404 && !/AGENT/i.test(e.code);
}

export interface MediaFiles {
  /** tunnel.media: a delivery's file, as bytes (the delivery from `local`, the tunnel log, unless told where). */
  delivery(id: string, local: () => StoredDelivery): Promise<MediaDTO>;
  /** messages.media: a message's file; images as a data: URL. */
  message(teamId: string, agentId: string, key: string): Promise<MessageMediaDTO>;
  /** messages.saveMedia: saved where the person chooses (desktop), or answered for the window to download. */
  save(teamId: string, agentId: string, key: string): Promise<SavedMediaDTO>;
}

export function mediaFiles({ c, requireTeam }: Scope, opts: MediaOptions = {}): MediaFiles {
  const maxBytes = opts.maxBytes ?? MEDIA_MAX_BYTES;
  const deadlineMs = opts.deadlineMs ?? MEDIA_DEADLINE_MS;
  const cache = c.messages.media;
  /** Fetches under way, by agent and message id: asked twice, fetched once (until its deadline). */
  const running = new Map<string, Promise<CachedMedia>>();

  const tooLarge = () =>
    new AppError(
      'invalid-request',
      'MEDIA_TOO_LARGE',
      `The file is larger than ${describeSize(maxBytes)}; download it with the CLI (channel-companion media) instead.`,
    );

  const fetchInto = async (
    teamId: string,
    agentId: string,
    messageId: string,
    at: number,
    hints: MediaHints | null,
    signal: AbortSignal,
  ) => {
    const client = await c.clientFor(teamId);
    return cache.put(
      agentId,
      messageId,
      at,
      async (dir, reserve) => {
        let result: Awaited<ReturnType<typeof client.downloadMedia>>;
        try {
          result = await client.downloadMedia(agentId, messageId, dir, {
            signal,
            // Room in the cache for the announced length (or the largest file accepted) before any byte.
            beforeBody: async (total) => {
              if (total !== null && total > maxBytes) throw tooLarge();
              const room = total ?? maxBytes;
              await reserve(room);
              return room;
            },
          });
        } catch (e) {
          if (isServiceError(e) && e.code === 'MEDIA_TOO_LARGE') throw tooLarge();
          if (e instanceof MediaCacheError && e.code === 'LARGER_THAN_CACHE')
            throw new AppError('invalid-request', 'MEDIA_TOO_LARGE', e.message);
          throw e;
        }
        const filename =
          safeFileName(result.filename ?? '') ?? safeFileName(hints?.filename ?? '') ?? path.basename(result.path);
        const mimeType = result.contentType?.split(';')[0]?.trim() || hints?.mimeType || 'application/octet-stream';
        return { path: result.path, filename, mimeType };
      },
      signal,
    );
  };

  /**
   * A fetch with its deadline: past it, the fetch is aborted and dropped (the next request starts
   * afresh, even while this one is still winding down) and its callers are told.
   */
  const fetchWithin = (
    k: string,
    teamId: string,
    agentId: string,
    messageId: string,
    at: number,
    hints: MediaHints | null,
  ): Promise<CachedMedia> => {
    const abort = new AbortController();
    let timer: unknown;
    const late = new Promise<never>((_, reject) => {
      timer = c.clock.setTimeout(() => {
        if (running.get(k) === run) running.delete(k);
        reject(
          new AppError(
            'timeout',
            'MEDIA_TIMEOUT',
            `The file did not arrive within ${Math.round(deadlineMs / 1000)} s; the download was stopped. Try again.`,
          ),
        );
        abort.abort();
      }, deadlineMs);
    });
    const fetching = fetchInto(teamId, agentId, messageId, at, hints, abort.signal);
    fetching.catch(() => undefined);
    const run: Promise<CachedMedia> = Promise.race([fetching, late]).finally(() => {
      c.clock.clearTimeout(timer);
      if (running.get(k) === run) running.delete(k);
    });
    return run;
  };

  /** The cached file, or fetched now; a file the service no longer has is said plainly. */
  const file = async (
    teamId: string,
    agentId: string,
    messageId: string,
    /** ms epoch of the message (the cache's retention). */
    at: number,
    type: string | null | undefined,
    hints: MediaHints | null,
  ): Promise<CachedMedia> => {
    const had = await cache.get(agentId, messageId);
    if (had) return had;
    const k = `${agentId}\0${messageId}`;
    let run = running.get(k);
    if (!run) {
      run = fetchWithin(k, teamId, agentId, messageId, at, hints);
      running.set(k, run);
    }
    try {
      return await run;
    } catch (e) {
      if (isGone(e)) throw new AppError('not-found', 'MEDIA_EXPIRED', goneWords(type));
      throw e;
    }
  };

  /** A file's bytes: held by the store (a hub's database), or in the cache folder. */
  const bytesOf = (f: CachedMedia): Promise<Buffer> => (f.data ? Promise.resolve(f.data) : readFile(f.path));

  const asDTO = async (f: CachedMedia): Promise<MediaDTO> => {
    const data = await bytesOf(f);
    return { filename: f.filename, mimeType: f.mimeType, bytes: data.length, dataBase64: data.toString('base64') };
  };

  /** A message that has a file to fetch: inbound (or typed on the phone) with the service's message id. */
  const messageFile = async (teamId: string, agentId: string, key: string) => {
    const team = requireTeam(teamId);
    if (!team.agents.some((a) => a.agentId === agentId))
      throw new AppError('not-found', 'NO_AGENT', `Agent "${agentId}" is not in team "${team.label}".`);
    const m = await c.messages.message(agentId, key);
    if (!m) throw new AppError('not-found', 'NO_MESSAGE', `No message ${key} of agent "${agentId}" is kept here.`);
    if (m.type === 'text' && !m.media)
      throw new AppError('invalid-request', 'NO_MEDIA', `Message ${key} is a text message without a file.`);
    if (m.sendId !== undefined)
      throw new AppError(
        'invalid-request',
        'MEDIA_SENT_BY_URL',
        'This file was sent from this install by its link; the service keeps no copy to fetch.',
      );
    if (!m.messageId)
      throw new AppError(
        'invalid-request',
        'NO_MESSAGE_ID',
        `Message ${key} has no message id to fetch its file with.`,
      );
    return file(team.id, agentId, m.messageId, m.at, m.type, m.media ?? null);
  };

  return {
    async delivery(asked, local) {
      const d = opts.delivery ? await opts.delivery(asked) : local();
      const { id } = d;
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
      return asDTO(await file(teams[0]!.id, d.agentId, messageId, d.receivedAt, type, hints));
    },
    async message(teamId, agentId, key) {
      const f = await messageFile(teamId, agentId, key);
      const drawn = DRAWN_TYPES.has(f.mimeType) && f.bytes <= INLINE_IMAGE_MAX_BYTES;
      const dataUrl = drawn ? `data:${f.mimeType};base64,${(await bytesOf(f)).toString('base64')}` : null;
      return { filename: f.filename, mimeType: f.mimeType, bytes: f.bytes, dataUrl };
    },
    async save(teamId, agentId, key) {
      const f = await messageFile(teamId, agentId, key);
      if (!opts.askSavePath) return { saved: 'download', file: await asDTO(f) };
      const target = await opts.askSavePath(f.filename);
      if (target === null) return { saved: 'cancelled' };
      try {
        if (f.data) await writeFile(target, f.data);
        else await copyFile(f.path, target);
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        throw new AppError(
          'invalid-request',
          'SAVE_FAILED',
          `The file could not be written there${typeof code === 'string' ? ` (${code})` : ''}.`,
        );
      }
      return { saved: 'file', filename: path.basename(target) };
    },
  };
}
