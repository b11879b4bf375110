// The messages' files (images, documents) on a hub: kept in Postgres (`hub_media`, migration 0010_media), not
// in a replica's data folder, so tunnel.media, messages.media and messages.saveMedia answer on every replica
// whichever replica received the delivery. A file is fetched from the service (GET /whatsapp/media/{id}, with
// the team's key) by the first replica asked for it, once, and stored; the service's links are short-lived and
// how long it keeps a file is not said, so the copy the team was shown stays readable as long as its message
// is kept. It leaves with the message: a deletion deletes its rows (every replica reads only the database, no
// replica keeps a copy), and so does the inbox's retention.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { MediaCacheError } from '../../core/messages/media-cache';
import type { CachedMedia, MediaStore } from '../../core/messages';
import type { StoredDelivery } from '../../core/tunnel';
import { AppError } from '../errors';
import type { HubDatabase } from './database';

/** The largest file stored (the contract's own cap on a message's file, app/contract/media.ts). */
const MEDIA_MAX_BYTES = 25 * 1024 * 1024;

interface HubMedia {
  /** The companion's store of the messages' files (CompanionOptions.messages.media). */
  store: MediaStore;
  /** Where tunnel.media finds a delivery (the contract's media option): the hub's deliveries. */
  delivery(id: string): Promise<StoredDelivery>;
}

export function hubMedia(opts: {
  db: HubDatabase;
  /** The replica's data folder: a file being fetched is written under it, then read into the database. */
  dataDir: string;
  /** A delivery as stored in the hub (app/hub/deliveries.ts). */
  findDelivery(id: string): Promise<StoredDelivery>;
  maxBytes?: number;
}): HubMedia {
  const { db } = opts;
  const maxBytes = opts.maxBytes ?? MEDIA_MAX_BYTES;
  const fills = path.join(opts.dataDir, 'messages', 'media-fills');

  const store: MediaStore = {
    async get(agentId, messageId) {
      const r = await db
        .selectFrom('hub_media')
        .select(['filename', 'mime_type', 'bytes', 'data'])
        .where('agent_id', '=', agentId)
        .where('message_id', '=', messageId)
        .executeTakeFirst();
      return r ? { path: '', filename: r.filename, mimeType: r.mime_type, bytes: r.bytes, data: r.data } : null;
    },

    async put(agentId, messageId, at, fill): Promise<CachedMedia> {
      await mkdir(fills, { recursive: true, mode: 0o700 });
      const temp = await mkdtemp(path.join(fills, 'fill-'));
      try {
        let reserved = 0;
        const filled = await fill(temp, async (bytes) => {
          if (bytes > maxBytes)
            throw new MediaCacheError(
              'LARGER_THAN_CACHE',
              `The file (${bytes} bytes) is larger than the hub keeps (${maxBytes} bytes).`,
            );
          reserved = bytes;
        });
        const data = await readFile(filled.path);
        if (data.length > reserved)
          throw new MediaCacheError('NOT_RESERVED', `The file (${data.length} bytes) is larger than it announced.`);
        // Two replicas fetching the same file at once: the first one stored is kept, and both answer it. A
        // message deleted meanwhile (its key remembered in the deletion's transaction) gets no row again.
        const { filename, mimeType } = filled;
        await sql`insert into hub_media (agent_id, message_id, at, filename, mime_type, bytes, data)
          select ${agentId}::text, ${messageId}::text, ${new Date(at)}::timestamptz, ${filename}::text,
            ${mimeType}::text, ${data.length}::integer, ${data}::bytea
          where not exists (select 1 from hub_message_forgotten where agent_id = ${agentId} and key = ${messageId})
          on conflict (agent_id, message_id) do nothing`.execute(db);
        const kept = await store.get(agentId, messageId);
        if (!kept) throw new AppError('not-found', 'MESSAGE_DELETED', 'The message was deleted with its file.');
        return kept;
      } finally {
        await rm(temp, { recursive: true, force: true }).catch(() => undefined);
      }
    },

    async remove(agentId, messageIds) {
      if (messageIds?.length === 0) return;
      let q = db.deleteFrom('hub_media').where('agent_id', '=', agentId);
      if (messageIds) q = q.where('message_id', 'in', [...messageIds]);
      await q.execute();
    },

    async removeOlderThan(cutoff) {
      await db
        .deleteFrom('hub_media')
        .where('at', '<', sql<Date>`to_timestamp(${cutoff / 1000})`)
        .execute();
    },
  };

  return {
    store,
    async delivery(id) {
      const d = await opts.findDelivery(id);
      // A deleted message's delivery keeps its row with the body blanked: its file is not fetched again.
      if (d.bodyBase64 === '')
        throw new AppError('not-found', 'MESSAGE_DELETED', `The message of delivery ${id} was deleted with its file.`);
      return d;
    },
  };
}
