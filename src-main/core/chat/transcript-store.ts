// The chat transcripts' port (TranscriptStore: a conversation's turns, bounded to the latest, and the agent's
// conversations summarised) and its default adapter, on disk: one JSON file per agent + user_id, written
// atomically. Writes to one file are serialised; a corrupt file is set aside, not trusted.
import { mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { silentLogger, type Logger } from '../ports';
import { serialByKey } from '../serial';
import type { ConversationSummary, TurnRecord } from './types';

/** Turns kept per conversation (the latest): a transcript is at most this long. */
export const DEFAULT_MAX_TURNS = 200;

const turnSchema = z.object({
  turnId: z.string(),
  teamId: z.string(),
  agentId: z.string(),
  userId: z.string(),
  message: z.string(),
  reply: z.string(),
  conversationId: z.string().nullable(),
  actions: z.array(z.looseObject({ name: z.string() })),
  usage: z.object({
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    totalTokens: z.number().optional(),
  }),
  mode: z.enum(['stream', 'single', 'fallback']),
  startedAt: z.number(),
  endedAt: z.number(),
  firstTokenMs: z.number().nullable(),
  tokensPerSec: z.number().nullable(),
  tokenCount: z.number(),
  stopped: z.boolean(),
  error: z
    .looseObject({
      kind: z.string(),
      code: z.string(),
      message: z.string(),
      rateLimit: z.record(z.string(), z.number()),
    })
    .nullable(),
});

const fileSchema = z.object({
  version: z.literal(1),
  agentId: z.string(),
  userId: z.string(),
  turns: z.array(z.unknown()),
});

const TITLE_CHARS = 80;
const PREVIEW_CHARS = 140;
/** Words either side of a search match. */
const MATCH_CONTEXT = 40;

/** At most `max` characters, an ellipsis when cut; `oneLine` folds whitespace runs (line breaks too). */
function cut(text: string, max: number, oneLine = true): string {
  const t = (oneLine ? text.replace(/\s+/g, ' ') : text).trim();
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

/** The text around the first occurrence of `needle` (lower case) in a message or reply, or null. */
function firstMatch(turns: readonly Pick<TurnRecord, 'message' | 'reply'>[], needle: string): string | null {
  for (const t of turns) {
    for (const text of [t.message, t.reply]) {
      const at = text.toLowerCase().indexOf(needle);
      if (at === -1) continue;
      const from = Math.max(0, at - MATCH_CONTEXT);
      const to = Math.min(text.length, at + needle.length + MATCH_CONTEXT);
      return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ').trim()}${to < text.length ? '…' : ''}`;
    }
  }
  return null;
}

/** A turn as stored, checked: null when it is not one (a store drops it, not trusts it). */
export function turnRecordOf(value: unknown): TurnRecord | null {
  const r = turnSchema.safeParse(value);
  return r.success ? (r.data as TurnRecord) : null;
}

/** What a conversation's summary is made of, whichever store keeps its turns. */
interface ConversationParts {
  agentId: string;
  userId: string;
  turns: number;
  first: Pick<TurnRecord, 'message'>;
  last: Pick<TurnRecord, 'message' | 'reply' | 'endedAt'>;
  /** The latest conversation id the service gave (null: none yet). */
  conversationId: string | null;
  /** With a search: the turns to find its first match in (in order; a store may pass only the first that matches). */
  searched: readonly Pick<TurnRecord, 'message' | 'reply'>[];
}

/** The conversation's summary; null when a search text (`needle`, lower case) matches none of its words. */
export function conversationSummary(parts: ConversationParts, needle: string | null): ConversationSummary | null {
  const match = needle === null ? null : firstMatch(parts.searched, needle);
  if (needle !== null && match === null) return null;
  return {
    agentId: parts.agentId,
    userId: parts.userId,
    turns: parts.turns,
    lastAt: parts.last.endedAt,
    conversationId: parts.conversationId,
    title: cut(parts.first.message, TITLE_CHARS),
    preview: cut(parts.last.reply.trim() || parts.last.message, PREVIEW_CHARS, false),
    match,
  };
}

/** The summary of a conversation's turns (oldest first); null when it has none or a search matches none. */
export function summaryOfTurns(
  agentId: string,
  userId: string,
  turns: readonly TurnRecord[],
  needle: string | null,
): ConversationSummary | null {
  if (turns.length === 0) return null;
  const withId = [...turns].reverse().find((t) => t.conversationId !== null);
  return conversationSummary(
    {
      agentId,
      userId,
      turns: turns.length,
      first: turns[0]!,
      last: turns[turns.length - 1]!,
      conversationId: withId?.conversationId ?? null,
      searched: turns,
    },
    needle,
  );
}

/** The search text as the stores compare it (lower case), or null for none. */
export function searchNeedle(text: string | undefined): string | null {
  return text?.trim().toLowerCase() || null;
}

/** Where a companion keeps its chat transcripts: its data folder (FileTranscriptStore), a hub's database. */
export interface TranscriptStore {
  /** The conversation's turns, oldest first (the latest DEFAULT_MAX_TURNS, or the store's bound). */
  list(agentId: string, userId: string): Promise<TurnRecord[]>;
  /** Adds a turn that ended at the end of its conversation; the oldest go beyond the bound. */
  append(turn: TurnRecord): Promise<void>;
  /** Deletes the conversation's turns. */
  clear(agentId: string, userId: string): Promise<void>;
  /**
   * Every user_id with a transcript for this agent, most recent first. With `text`, only those where
   * a message or reply contains it (case-insensitive), each with the words around the first match.
   */
  conversations(agentId: string, text?: string): Promise<ConversationSummary[]>;
}

/** File-name-safe, reversible encoding of an id. */
function enc(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}
function dec(name: string): string {
  return Buffer.from(name, 'base64url').toString('utf8');
}

export interface TranscriptStoreOptions {
  dataDir: string;
  maxTurns?: number;
  logger?: Logger;
  /** For naming set-aside files; default Date.now. */
  now?: () => number;
}

export class FileTranscriptStore implements TranscriptStore {
  private readonly dataDir: string;
  private readonly maxTurns: number;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly cache = new Map<string, TurnRecord[]>();
  private readonly inTurn = serialByKey<string>();

  constructor(opts: TranscriptStoreOptions) {
    this.dataDir = opts.dataDir;
    this.maxTurns = Math.max(1, Math.floor(opts.maxTurns ?? DEFAULT_MAX_TURNS));
    this.logger = opts.logger ?? silentLogger;
    this.now = opts.now ?? Date.now;
  }

  fileFor(agentId: string, userId: string): string {
    return path.join(this.dataDir, enc(agentId), `${enc(userId)}.json`);
  }

  /** Turns oldest first. */
  list(agentId: string, userId: string): Promise<TurnRecord[]> {
    return this.serial(this.fileFor(agentId, userId), async (file) => [...(await this.load(file, agentId, userId))]);
  }

  append(turn: TurnRecord): Promise<void> {
    return this.serial(this.fileFor(turn.agentId, turn.userId), async (file) => {
      const turns = [...(await this.load(file, turn.agentId, turn.userId)), turn].slice(-this.maxTurns);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFileAtomic(
        file,
        JSON.stringify({ version: 1, agentId: turn.agentId, userId: turn.userId, turns }, null, 1),
      );
      this.cache.set(file, turns);
    });
  }

  clear(agentId: string, userId: string): Promise<void> {
    return this.serial(this.fileFor(agentId, userId), async (file) => {
      await unlink(file).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
      this.cache.set(file, []);
    });
  }

  async conversations(agentId: string, text?: string): Promise<ConversationSummary[]> {
    const needle = searchNeedle(text);
    let names: string[];
    try {
      names = await readdir(path.join(this.dataDir, enc(agentId)));
    } catch {
      return [];
    }
    const out: ConversationSummary[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const userId = dec(name.slice(0, -'.json'.length));
      const summary = summaryOfTurns(agentId, userId, await this.list(agentId, userId), needle);
      if (summary) out.push(summary);
    }
    return out.sort((a, b) => (b.lastAt ?? 0) - (a.lastAt ?? 0));
  }

  private serial<T>(file: string, fn: (file: string) => Promise<T>): Promise<T> {
    return this.inTurn(file, () => fn(file));
  }

  private async load(file: string, agentId: string, userId: string): Promise<TurnRecord[]> {
    const cached = this.cache.get(file);
    if (cached) return cached;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      this.cache.set(file, []);
      return [];
    }
    let turns: TurnRecord[] = [];
    try {
      const parsed = fileSchema.parse(JSON.parse(text));
      if (parsed.agentId !== agentId || parsed.userId !== userId)
        throw new Error('transcript belongs to another conversation');
      for (const t of parsed.turns) {
        const r = turnRecordOf(t);
        if (r) turns.push(r);
      }
      if (turns.length < parsed.turns.length)
        this.logger.warn('transcript: dropped unreadable turns', { dropped: parsed.turns.length - turns.length });
    } catch (err) {
      const aside = `${file}.corrupt-${this.now()}`;
      this.logger.warn('transcript: unreadable file set aside', { file: aside, error: (err as Error).message });
      await rename(file, aside).catch(() => undefined);
      turns = [];
    }
    this.cache.set(file, turns);
    return turns;
  }
}
