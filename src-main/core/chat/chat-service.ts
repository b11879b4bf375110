// Conversations with agents, per agent and user_id. A turn streams (falling back to one response),
// can be stopped, and lands in a bounded transcript (the data folder's, or the store it is given).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { InvalidRequest } from '../api/errors';
import { inputProblem, ruleWords } from '../input-words';
import type { FrameSnapshot } from '../api/raw';
import type { ChatStream, ServiceClient } from '../api/service';
import { silentLogger, systemClock, type Clock, type Logger } from '../ports';
import { EventQueue } from './event-queue';
import { FileTranscriptStore, type TranscriptStore } from './transcript-store';
import { runTurn } from './turn-runner';
import type { ActiveTurn, ConversationSummary, StartTurnInput, TurnEvent, TurnHandle, TurnRecord } from './types';

export interface ChatServiceOptions {
  /** The service client of a team (one per API key). */
  clientFor: (teamId: string) => Promise<ServiceClient>;
  /** Stable id of this install: the default user_id. */
  installId: string;
  /** Folder for transcripts (one JSON file per agent + user_id), unless `transcripts` keeps them. */
  dataDir: string;
  /** Where the transcripts are kept instead of `dataDir` (a hub: its database, the same on every replica). */
  transcripts?: TranscriptStore;
  clock?: Clock;
  logger?: Logger;
  /** Turns kept per transcript; default 200. */
  maxTurns?: number;
  newId?: () => string;
}

const id = z.string().trim().min(1).max(200);
const startSchema = z.object({
  teamId: id,
  agentId: id,
  userId: id.optional(),
  message: z
    .string()
    .refine((s) => s.trim() !== '', 'The message is empty.')
    .refine((s) => s.length <= 32_000, 'The message is longer than 32 000 characters.'),
  stream: z.boolean().optional(),
});

/** A conversation's deletion asked while a reply is coming in it (refused on every replica of a hub alike). */
export function deletionWhileRunning(): InvalidRequest {
  return new InvalidRequest({
    code: 'TURN_RUNNING',
    message: 'A reply is still coming in this conversation; stop it before deleting the conversation.',
  });
}

function invalid(err: z.ZodError): InvalidRequest {
  return new InvalidRequest({ message: inputProblem(err).message });
}

interface Running extends ActiveTurn {
  ctrl: AbortController;
  stream?: ChatStream;
}

/** Turns whose frames as received are kept after they end (newest last). */
const KEPT_FRAME_TURNS = 20;

/** A turn's stream frames as received, for the raw view; `live` while the turn runs. */
export interface TurnFrames extends FrameSnapshot {
  live: boolean;
}

export class ChatService {
  private readonly opts: ChatServiceOptions;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly store: TranscriptStore;
  private readonly newId: () => string;
  private readonly running = new Map<string, Running>();
  private readonly endedFrames = new Map<string, FrameSnapshot>();

  constructor(opts: ChatServiceOptions) {
    const installId = id.safeParse(opts.installId);
    if (!installId.success) throw new InvalidRequest({ message: 'installId is required.' });
    this.opts = { ...opts, installId: installId.data };
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger ?? silentLogger;
    this.newId = opts.newId ?? (() => randomUUID());
    this.store =
      opts.transcripts ??
      new FileTranscriptStore({
        dataDir: opts.dataDir,
        maxTurns: opts.maxTurns,
        logger: this.logger,
        now: () => this.clock.now(),
      });
  }

  /** The user_id used when none is given. */
  get defaultUserId(): string {
    return this.opts.installId;
  }

  /**
   * Starts a turn. Throws InvalidRequest for bad input or when a turn is already running in the
   * same conversation (agent + user_id). The events always end with one `done` event.
   */
  startTurn(input: StartTurnInput): TurnHandle {
    const parsed = startSchema.safeParse(input, { error: ruleWords });
    if (!parsed.success) throw invalid(parsed.error);
    const { teamId, agentId, message } = parsed.data;
    const userId = parsed.data.userId ?? this.opts.installId;
    if (this.runningIn(agentId, userId)) {
      throw new InvalidRequest({
        code: 'TURN_RUNNING',
        message: 'A reply is still coming in this conversation; stop it or wait.',
      });
    }
    const turnId = this.newId();
    const ctrl = new AbortController();
    const run: Running = { turnId, teamId, agentId, userId, startedAt: this.clock.now(), ctrl };
    this.running.set(turnId, run);
    const queue = new EventQueue<TurnEvent>();

    let clientP: Promise<ServiceClient>;
    try {
      clientP = Promise.resolve(this.opts.clientFor(teamId));
    } catch (err) {
      clientP = Promise.reject(err);
    }
    const spec = { turnId, teamId, agentId, userId, message, stream: parsed.data.stream ?? true };
    const result = runTurn(
      clientP,
      spec,
      this.clock,
      ctrl.signal,
      (ev) => queue.push(ev),
      (stream) => (run.stream = stream),
    ).then(async (turn) => {
      this.keepFrames(turnId, run.stream);
      this.running.delete(turnId);
      try {
        await this.store.append(turn);
      } catch (err) {
        this.logger.warn('chat: transcript not saved', { agentId, error: (err as Error).message });
      }
      queue.push({ type: 'done', turnId, turn });
      queue.close();
      return turn;
    });
    return { turnId, userId, events: queue, result };
  }

  /** Stops a running turn (its record keeps the partial reply, stopped: true). False if not running. */
  stopTurn(turnId: string): boolean {
    const r = this.running.get(turnId);
    if (!r) return false;
    r.ctrl.abort();
    return true;
  }

  activeTurns(): ActiveTurn[] {
    return [...this.running.values()].map(({ ctrl: _ctrl, stream: _stream, ...rest }) => rest);
  }

  /**
   * The frames of a turn's token stream as received (event, id, data), while it runs and for the
   * latest turns after; null for a turn this run of the app did not stream.
   */
  frames(turnId: string): TurnFrames | null {
    const running = this.running.get(turnId);
    if (running?.stream) return { ...running.stream.frames(), live: true };
    const ended = this.endedFrames.get(turnId);
    return ended ? { ...ended, live: false } : running ? { frames: [], omitted: 0, live: true } : null;
  }

  private keepFrames(turnId: string, stream: ChatStream | undefined): void {
    if (!stream) return;
    this.endedFrames.set(turnId, stream.frames());
    for (const id of this.endedFrames.keys()) {
      if (this.endedFrames.size <= KEPT_FRAME_TURNS) break;
      this.endedFrames.delete(id);
    }
  }

  /** Turns of one conversation, oldest first. */
  listTranscript(agentId: string, userId: string = this.opts.installId): Promise<TurnRecord[]> {
    return this.store.list(agentId, userId);
  }

  /** Every user_id this install has talked to the agent as, most recent first; `text` searches messages and replies. */
  listConversations(agentId: string, text?: string): Promise<ConversationSummary[]> {
    return this.store.conversations(agentId, text);
  }

  /**
   * Deletes this install's transcript of one conversation (the service keeps whatever it keeps under
   * that user_id). Refused while a reply is coming in it. Resolves true when there was one.
   */
  async deleteConversation(agentId: string, userId: string): Promise<boolean> {
    if (this.runningIn(agentId, userId)) throw deletionWhileRunning();
    const had = (await this.store.list(agentId, userId)).length > 0;
    await this.store.clear(agentId, userId);
    return had;
  }

  clearTranscript(agentId: string, userId: string = this.opts.installId): Promise<void> {
    return this.store.clear(agentId, userId);
  }

  private runningIn(agentId: string, userId: string): boolean {
    for (const r of this.running.values()) if (r.agentId === agentId && r.userId === userId) return true;
    return false;
  }

  /** Stops every running turn. */
  stopAll(): void {
    for (const r of this.running.values()) r.ctrl.abort();
  }
}
