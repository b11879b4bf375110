// One webhook registration of an agent at a time on a data folder. The service keeps one webhook URL
// per agent and answers every registration with a new signing secret: two registrations that overlap
// (two `webhook set`, or the app and a terminal) could leave the service on one URL while this
// install keeps the other's secret, and its history names the other as the newest. A registration
// holds `<data>/webhook-registering-<agent>.lock` (core/lock-file.ts: the holder's pid, taken over
// when that process is gone) from its request until its secret is kept and its history written; the
// next one waits for it (in this process in turn, across processes by looking again every POLL_MS).
import { join, resolve } from 'node:path';
import { acquireLockFile, holderWords, LockedError, type HeldLock, type LockHolder } from '../lock-file';
import { serialByKey } from '../serial';

/** How long a registration waits for the one before it (a registration's request gives up well before). */
const MAX_WAIT_MS = 120_000;
const POLL_MS = 100;

/** The lock file of an agent's registrations in a data folder. */
function registrationLockName(agentId: string): string {
  return `webhook-registering-${encodeURIComponent(agentId)}.lock`;
}

/** Registrations of this process, one per lock file at a time. */
const inTurn = serialByKey<string>();

const busy = (agentId: string) => (h: LockHolder | null) =>
  `another webhook registration of ${agentId} is under way${h ? ` (${holderWords(h)})` : ''}`;

async function waitForLock(
  dataDir: string,
  agentId: string,
  maxWaitMs: number,
  signal?: AbortSignal,
): Promise<HeldLock> {
  const started = Date.now();
  for (;;) {
    try {
      return await acquireLockFile(dataDir, registrationLockName(agentId), busy(agentId));
    } catch (e) {
      if (!(e instanceof LockedError)) throw e;
      if (Date.now() - started >= maxWaitMs)
        throw new LockedError(
          e.dir,
          e.holder,
          `${e.message}; gave up waiting for it after ${Math.round(maxWaitMs / 1000)} s`,
        );
    }
    signal?.throwIfAborted();
    await new Promise((r) => setTimeout(r, POLL_MS));
    signal?.throwIfAborted();
  }
}

export interface RegistrationTurnOptions {
  signal?: AbortSignal;
  /** Default MAX_WAIT_MS. */
  maxWaitMs?: number;
}

/** Runs `work` (one registration of agentId) once no other registration of that agent runs on the data folder. */
export function registrationTurn<T>(
  dataDir: string,
  agentId: string,
  work: () => Promise<T>,
  o: RegistrationTurnOptions = {},
): Promise<T> {
  // One spelling of the folder: two spellings of it in one process still wait for each other.
  const dir = resolve(dataDir);
  return inTurn(join(dir, registrationLockName(agentId)), async () => {
    const lock = await waitForLock(dir, agentId, o.maxWaitMs ?? MAX_WAIT_MS, o.signal);
    try {
      return await work();
    } finally {
      await lock.release();
    }
  });
}
