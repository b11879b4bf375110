// The companion's local endpoint: one running companion owns a data folder, and serves the contract on a
// socket only this user can open, so every window, tab and command is a client of that one companion.
//   <data dir>/companion.lock       who owns the folder (pid, host, since): a second companion is refused
//   <data dir>/companion.json       what the owner serves: its shell, the socket, the browser host's origin
//   <data dir>/companion.sock       the contract over HTTP (POST /api/<request>, GET /api/events)
// The socket lives in the data folder (0700) and is made 0600; where the folder's path is too long for a Unix
// socket it lives in a 0700 folder of this user under the system temp folder instead (named after the data
// folder). On Windows it is a named pipe named after the data folder.
import { createHash } from 'node:crypto';
import { chmod, readFile, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import {
  acquireLockFile,
  holderWords,
  LockedError,
  processAlive,
  type HeldLock,
  type LockHolder,
} from '../../core/lock-file';
import { ensurePrivateDir } from '../../core/tunnel/private-files';
import { contractServing, fail } from '../contract-http';
import type { Handlers } from '../handlers';
import type { ContractEvents } from '../contract';
import { AppError } from '../errors';

const COMPANION_LOCK = 'companion.lock';
const OWNER_FILE = 'companion.json';

/** Which shell runs the companion. */
export type CompanionShell = 'desktop' | 'serve' | 'up' | 'hub' | 'command';

export interface CompanionOwner {
  pid: number;
  since: number;
  shell: CompanionShell;
  /** The socket (or pipe) the contract is served on. */
  socket: string;
  /** The browser host's origin (no token), or null when none runs. */
  browserOrigin: string | null;
  /** The command line that started it, for "stop it with …" (e.g. "channel-companion up"). */
  command: string | null;
}

const ownerSchema = z.object({
  pid: z.number().int().positive(),
  since: z.number(),
  shell: z.enum(['desktop', 'serve', 'up', 'hub', 'command']),
  socket: z.string().min(1),
  browserOrigin: z.string().nullable(),
  command: z.string().nullable(),
});

/** Unix sockets' paths are limited to ~104 bytes (macOS) / 108 (Linux). */
const MAX_SOCKET_PATH = 100;

/** The socket (or named pipe) of the companion of `dataDir`. */
export function companionSocketPath(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  const abs = path.resolve(dataDir);
  const tag = createHash('sha256').update(abs).digest('hex').slice(0, 16);
  if (platform === 'win32') return `\\\\.\\pipe\\channel-companion-${tag}`;
  const inFolder = path.join(abs, 'companion.sock');
  if (Buffer.byteLength(inFolder) <= MAX_SOCKET_PATH) return inFolder;
  return path.join(privateTempDir(), `${tag}.sock`);
}

function privateTempDir(): string {
  let who = 'user';
  try {
    who = String(userInfo().uid >= 0 ? userInfo().uid : userInfo().username);
  } catch {
    // no passwd entry: one folder for this process's user all the same
  }
  return path.join(tmpdir(), `channel-companion-${who}`);
}

/** The owner of the data folder as it wrote itself down, or null (none, gone, or unreadable). */
export async function readCompanionOwner(dataDir: string): Promise<CompanionOwner | null> {
  let text: string;
  try {
    text = await readFile(path.join(dataDir, OWNER_FILE), 'utf8');
  } catch {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const r = ownerSchema.safeParse(parsed);
  if (!r.success || !processAlive(r.data.pid)) return null;
  return r.data;
}

/** "serve (process 1234, since 10:02)" */
export function ownerWords(o: Pick<CompanionOwner, 'pid' | 'shell' | 'since'>): string {
  const what =
    o.shell === 'desktop' ? 'the desktop app' : o.shell === 'command' ? 'a command' : `channel-companion ${o.shell}`;
  const since = new Date(o.since).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  return `${what} (process ${o.pid}, since ${since})`;
}

/** Another companion owns the data folder: never a second one. */
export class FolderOwnedError extends AppError {
  constructor(
    readonly dataDir: string,
    readonly owner: CompanionOwner | null,
    holder: LockHolder | null,
  ) {
    const who = owner ? ownerWords(owner) : holder ? holderWords(holder) : 'another process';
    super(
      'invalid-request',
      'FOLDER_OWNED',
      `The data folder ${dataDir} is owned by ${who}: a second companion does not start on it. Commands attach to the running one by themselves${owner?.browserOrigin ? `; its screens are at ${owner.browserOrigin}` : ''}; stop it first to start another here.`,
    );
    this.name = 'FolderOwnedError';
  }
}

export interface OwnedFolder {
  readonly dataDir: string;
  /** Serves the contract on the folder's socket and writes down who serves it. */
  serve(opts: {
    handlers: Handlers;
    events: ContractEvents;
    shell: CompanionShell;
    browserOrigin?: string | null;
    command?: string | null;
  }): Promise<string>;
  /** The browser host started (or moved) after serve(): written down for clients to name. */
  setBrowserOrigin(origin: string | null): Promise<void>;
  release(): Promise<void>;
}

/** Takes the data folder for this process's companion, or throws FolderOwnedError naming who has it. */
export async function ownDataFolder(dataDir: string, now: () => number = Date.now): Promise<OwnedFolder> {
  const dir = path.resolve(dataDir);
  let lock: HeldLock;
  try {
    lock = await acquireLockFile(dir, COMPANION_LOCK, () => '');
  } catch (e) {
    if (e instanceof LockedError) throw new FolderOwnedError(dir, await readCompanionOwner(dir), e.holder);
    throw e;
  }
  let server: Server | null = null;
  let endStreams = (): void => undefined;
  let owner: CompanionOwner | null = null;
  const writeOwner = async (): Promise<void> => {
    if (owner) await writeFileAtomic(path.join(dir, OWNER_FILE), `${JSON.stringify(owner)}\n`, { mode: 0o600 });
  };
  return {
    dataDir: dir,
    async serve(o) {
      const socket = companionSocketPath(dir);
      if (process.platform !== 'win32') {
        await ensurePrivateDir(path.dirname(socket));
        // A socket left by a companion that died: the lock says it is ours now.
        await unlink(socket).catch(() => undefined);
      }
      const api = contractServing({ handlers: o.handlers, events: o.events });
      endStreams = () => api.endStreams();
      const srv = createServer((req, res) => {
        const p = (req.url ?? '/').split('?')[0] ?? '/';
        // A browser cannot open a Unix socket; a page that tried anyway would send an Origin.
        if (req.headers.origin !== undefined)
          return fail(res, 403, 'forbidden', 'BAD_ORIGIN', 'Cross-origin requests are not allowed.');
        if (!p.startsWith('/api/')) return fail(res, 404, 'not-found', 'NOT_FOUND', 'Not found.');
        api.serve(req, res, p).catch(() => {
          if (!res.headersSent) fail(res, 500, 'internal', 'INTERNAL', 'Something went wrong inside the app.');
          else res.destroy();
        });
      });
      srv.requestTimeout = 0; // event streams last as long as the client
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(socket, () => {
          srv.off('error', reject);
          resolve();
        });
      });
      if (process.platform !== 'win32') await chmod(socket, 0o600);
      server = srv;
      owner = {
        pid: process.pid,
        since: now(),
        shell: o.shell,
        socket,
        browserOrigin: o.browserOrigin ?? null,
        command: o.command ?? null,
      };
      await writeOwner();
      return socket;
    },
    async setBrowserOrigin(origin) {
      if (!owner) return;
      owner = { ...owner, browserOrigin: origin };
      await writeOwner();
    },
    async release() {
      const srv = server;
      server = null;
      if (srv) {
        endStreams();
        srv.closeAllConnections();
        await new Promise<void>((resolve) => srv.close(() => resolve()));
      }
      if (owner) {
        await unlink(path.join(dir, OWNER_FILE)).catch(() => undefined);
        if (process.platform !== 'win32') await unlink(owner.socket).catch(() => undefined);
      }
      owner = null;
      await lock.release();
    },
  };
}
