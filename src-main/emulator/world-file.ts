// The agents' session states kept in a file (startEmulator's stateFile), so an emulator started
// again on the same file continues the same world: each agent linked or not, with the same phone,
// the same connectedSince (a flaky agent keeps its rhythm), a drop still running, a pairing still
// open (with a new QR), and its channel settings. Read once at start over the seed (agents the seed
// does not have are ignored), written after every request that may change something, one write at a
// time, atomically. Webhooks and their secrets are not kept: whoever registered them does so again.
import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { Agent, World } from './model';

const FILE_VERSION = 1;

const linkSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('unlinked') }),
  z.object({ kind: z.literal('pairing'), startedAt: z.number() }),
  z.object({
    kind: z.literal('linked'),
    phone: z.string().min(1),
    connectedSince: z.number(),
    /** null: not dropped; 'until-recovered': dropped until a recover. */
    downUntil: z.union([z.number(), z.literal('until-recovered'), z.null()]),
  }),
]);

const fileSchema = z.object({
  version: z.literal(FILE_VERSION),
  agents: z.record(
    z.string(),
    z.object({
      link: linkSchema,
      settings: z.object({ groups: z.boolean(), readReceipts: z.boolean(), deliveryReceipts: z.boolean() }),
    }),
  ),
});

type SavedAgent = z.infer<typeof fileSchema>['agents'][string];

function saved(agent: Agent): SavedAgent {
  const l = agent.link;
  const link: SavedAgent['link'] =
    l.kind === 'unlinked'
      ? { kind: 'unlinked' }
      : l.kind === 'pairing'
        ? { kind: 'pairing', startedAt: l.startedAt }
        : {
            kind: 'linked',
            phone: l.phone,
            connectedSince: l.connectedSince,
            downUntil: l.downUntil === Infinity ? 'until-recovered' : l.downUntil,
          };
  return { link, settings: { ...agent.settings } };
}

/** The world's agents as the file keeps them. */
function worldText(world: World): string {
  const agents: Record<string, SavedAgent> = {};
  for (const a of world.agents.values()) agents[a.id] = saved(a);
  return JSON.stringify({ version: FILE_VERSION, agents }) + '\n';
}

/**
 * Applies the file's agents to the world (after its seed). A missing file changes nothing; an
 * unreadable one changes nothing and is said through `onError` (it is written over at the next change).
 */
export async function restoreWorld(world: World, file: string, onError: (err: Error) => void): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') onError(err as Error);
    return;
  }
  let parsed: z.infer<typeof fileSchema>;
  try {
    const r = fileSchema.safeParse(JSON.parse(text));
    if (!r.success) return onError(new Error(`${file}: not the emulator's agent states`));
    parsed = r.data;
  } catch {
    return onError(new Error(`${file}: not JSON`));
  }
  for (const [agentId, s] of Object.entries(parsed.agents)) {
    const agent = world.agents.get(agentId);
    if (!agent) continue;
    agent.settings = { ...s.settings };
    const l = s.link;
    agent.link =
      l.kind === 'unlinked'
        ? { kind: 'unlinked' }
        : l.kind === 'pairing'
          ? // qrIndex -1: the first read makes the QR of this moment, with a new token.
            { kind: 'pairing', startedAt: l.startedAt, qrIndex: -1, token: '', qr: null }
          : {
              kind: 'linked',
              phone: l.phone,
              connectedSince: l.connectedSince,
              downUntil: l.downUntil === 'until-recovered' ? Infinity : l.downUntil,
            };
  }
}

/** Writes the world's agents to the file when asked: one write at a time, the latest state last. */
export class WorldFile {
  private chain: Promise<void> = Promise.resolve();
  private pending = false;

  constructor(
    private readonly world: World,
    private readonly file: string,
    private readonly onError: (err: Error) => void,
  ) {}

  /** A write of the state as it is when the write starts (asks made meanwhile share the next one). */
  save(): void {
    if (this.pending) return;
    this.pending = true;
    this.chain = this.chain.then(async () => {
      this.pending = false;
      try {
        await writeFileAtomic(this.file, worldText(this.world), { mode: 0o600 });
      } catch (err) {
        this.onError(err as Error);
      }
    });
  }

  flush(): Promise<void> {
    return this.chain;
  }
}
