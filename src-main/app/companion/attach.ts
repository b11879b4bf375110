// Attaching to the companion that owns a data folder: its local endpoint answers, and what it serves is the
// contract, so a client there is the same as one in the owner's process. Commands attach this way, and so does
// the desktop window when another companion (`up`, `serve`) owns the folder: a window is one more client.
import { EVENT_NAMES, REQUEST_NAMES, type AnyEvent, type RequestName } from '../../../src-shared/contract';
import { remoteClient, type ContractClient } from '../client';
import type { CompanionContract } from '../contract';
import type { Implementations } from '../handlers';
import { companionSocketPath, readCompanionOwner, type CompanionOwner } from './endpoint';

export interface Attached {
  client: ContractClient;
  /** Who owns the folder, as it wrote itself down (null when its note could not be read). */
  owner: CompanionOwner | null;
}

/** A client of the companion owning `dataDir`, or null when none answers there. */
export async function attachCompanion(dataDir: string): Promise<Attached | null> {
  const owner = await readCompanionOwner(dataDir);
  const client = remoteClient({ socketPath: owner?.socket ?? companionSocketPath(dataDir), timeoutMs: 60_000 });
  try {
    await client.request('app.ping', {});
  } catch {
    await client.close();
    return null;
  }
  return { client, owner };
}

/** The contract as a shell hosts it, answered by a companion elsewhere (the window of an attached desktop app). */
export function clientContract(client: ContractClient, now: () => number = Date.now): CompanionContract {
  const implementations = {} as Record<RequestName, (args: unknown) => Promise<unknown>>;
  for (const name of REQUEST_NAMES) implementations[name] = (args) => client.request(name, args as never);
  return {
    implementations: implementations as Implementations,
    events: {
      onAny(fn: (e: AnyEvent) => void) {
        const offs = EVENT_NAMES.map((name) => client.on(name, (payload) => fn({ name, payload } as AnyEvent)));
        return () => offs.forEach((off) => off());
      },
    },
    now,
    // The owner decides what its notices show while a screen is locked; this window has no say there.
    setScreenLocked: () => undefined,
    dispose: () => void client.close(),
  };
}
