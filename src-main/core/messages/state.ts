// The earlier home of what the Messages side keeps besides messages: <data dir>/messages/state.json
// (read marks by time, local names, deletions as tombstones, the retention setting). The database
// holds all of it now; this file is only read once, by the import on the first start after the
// upgrade (import.ts), and then removed. A file that cannot be read is imported as empty.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

export const DEFAULT_RETENTION_DAYS = 90;
export const DAY_MS = 24 * 3600_000;

interface Tombstone {
  agentId: string;
  /** One conversation, or every conversation of the agent when absent. */
  contact?: string;
  /** Messages at or before this time (ms epoch) were deleted. */
  upTo: number;
}

export interface LegacyState {
  retentionDays: number;
  /** agentId → contact → read up to (ms epoch). */
  read: Record<string, Record<string, number>>;
  /** contact → local name. */
  names: Record<string, string>;
  tombstones: Tombstone[];
}

const schema = z.object({
  version: z.literal(1),
  retentionDays: z.number().int().min(1).max(3650),
  read: z.record(z.string(), z.record(z.string(), z.number())),
  names: z.record(z.string(), z.string().max(200)),
  tombstones: z.array(
    z.object({ agentId: z.string().min(1), contact: z.string().min(1).optional(), upTo: z.number() }),
  ),
});

export function legacyStateFile(dataDir: string): string {
  return join(dataDir, 'messages', 'state.json');
}

/** The earlier state file, or null when there is none or it cannot be read. */
export async function readLegacyState(dataDir: string): Promise<LegacyState | null> {
  let text: string;
  try {
    text = await readFile(legacyStateFile(dataDir), 'utf8');
  } catch {
    return null;
  }
  try {
    return schema.parse(JSON.parse(text)) as LegacyState;
  } catch {
    return null;
  }
}
