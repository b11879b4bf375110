// A port this process could not listen on: who holds it, and a free one to offer instead.
// On Linux the holder is named from /proc: the listening socket's inode in /proc/net/tcp and tcp6,
// then the process with a descriptor on that socket (only processes of this user can be looked
// into). Elsewhere, or when it cannot be told, the holder is "another program".
import { createServer } from 'node:net';
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface PortOwner {
  pid: number | null;
  /** The process's short name (/proc/<pid>/comm), when known. */
  command: string | null;
  /** Another Channel Companion (the app, `serve` or `listen`). */
  companion: boolean;
}

const UNKNOWN: PortOwner = { pid: null, command: null, companion: false };
/** At most this many processes are looked into. */
const MAX_PROCESSES = 4096;

export function isPortTaken(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';
}

/** Inodes of the sockets listening on `port` (any address), from a /proc/net/tcp-style table. */
function listeningInodes(table: string, port: number): string[] {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const out: string[] = [];
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (f.length < 10 || f[3] !== '0A') continue;
    if (f[1]!.split(':').pop()?.toUpperCase() !== hex) continue;
    if (f[9] !== '0') out.push(f[9]!);
  }
  return out;
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

async function holderOf(inodes: Set<string>): Promise<number | null> {
  const pids = (await readdir('/proc').catch(() => [] as string[]))
    .filter((d) => /^\d+$/.test(d))
    .slice(0, MAX_PROCESSES);
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && inodes.has(m[1]!)) return Number(pid);
    }
  }
  return null;
}

/** Who listens on `port` on this machine, as far as can be told. */
export async function portOwner(port: number): Promise<PortOwner> {
  if (process.platform !== 'linux') return UNKNOWN;
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map(readText));
  const inodes = new Set(tables.flatMap((t) => (t ? listeningInodes(t, port) : [])));
  if (inodes.size === 0) return UNKNOWN;
  const pid = await holderOf(inodes);
  if (pid === null) return UNKNOWN;
  const command = (await readText(`/proc/${pid}/comm`))?.trim() || null;
  const cmdline = ((await readText(`/proc/${pid}/cmdline`)) ?? '').replace(/\0/g, ' ');
  return {
    pid,
    command,
    companion: /channel-companion|Channel Companion/i.test(cmdline) || /^channel-compan/i.test(command ?? ''),
  };
}

/** "another Channel Companion (process 42)", "another program (python3, process 42)", "this process" or "another program". */
export function describeOwner(o: PortOwner): string {
  if (o.pid === null) return 'another program';
  if (o.pid === process.pid) return 'this process (another of its servers)';
  if (o.companion) return `another Channel Companion (process ${o.pid})`;
  return `another program (${o.command ? `${o.command}, ` : ''}process ${o.pid})`;
}

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** A port free now on `host`: one of the next few after `port` (easy to remember), else any free one. */
export async function freePortNear(port: number, host: string, tries = 20): Promise<number> {
  for (let p = port + 1; p <= Math.min(port + tries, 65_535); p++) {
    if (await canListen(p, host)) return p;
  }
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ port: 0, host, exclusive: true }, () => {
      const a = s.address();
      const free = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(free));
    });
  });
}
