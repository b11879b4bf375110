// The emulator's world: teams, agents and what belongs to them. Plain data; lookups are O(1) maps.
import type { WireChannelSettings } from './wire';

export interface Team {
  id: string;
  name: string;
  apiKey: string;
  monthlyQuota: number;
  sendsPerMinute: number;
  /** Times (ms) of accepted sends inside the sliding window, oldest first. */
  sendTimes: number[];
  /** `YYYY-MM` of the month monthSends counts. */
  month: string;
  monthSends: number;
  agentIds: Set<string>;
  /** Dialect names the team's answers use (dialect.ts); [] for the emulator's own shapes. */
  dialect: string[];
}

type LinkState =
  | { kind: 'unlinked' }
  | { kind: 'pairing'; startedAt: number; qrIndex: number; token: string; qr: Promise<string> | null }
  /** downUntil: end of a drop (ms), Infinity = until recovered, null = not dropped. */
  | { kind: 'linked'; phone: string; connectedSince: number; downUntil: number | null };

interface WebhookState {
  mode: 'passthrough';
  url: string;
  secret: string;
  events: string[];
  updatedAt: string;
}

export interface InboundMedia {
  mimeType: string;
  filename: string;
  bytes: Buffer;
}

interface InboundRecord {
  id: string;
  from: string;
  type: 'text' | 'image' | 'document';
  receivedAt: number;
  media: InboundMedia | null;
  /** Extra: the service no longer has the file (the media endpoint answers 410). */
  mediaExpired?: boolean;
}

export interface ChatScript {
  reply?: string;
  tokens?: string[];
  tokenCount?: number;
  tokenDelayMs?: number;
  tokensPerSecond?: number;
  stampEvery?: number;
  actions?: Array<{ name: string; [k: string]: unknown }>;
  failAfterTokens?: number;
  status?: number;
  code?: string;
}

export const CHAT_LOG_MAX = 20;

export interface ChatRecord {
  userId: string;
  conversationId: string;
  stream: boolean;
  /** streaming until the stream ends; done, error (scripted failure) or aborted (the client left). */
  status: 'streaming' | 'done' | 'error' | 'aborted';
  /** The text sent so far (the whole reply once done). */
  reply: string;
  tokens: number;
  startedAt: number;
  endedAt: number | null;
}

export interface Agent {
  id: string;
  teamId: string;
  label: string;
  link: LinkState;
  flaky: { everySeconds: number; downSeconds: number } | null;
  webhook: WebhookState | null;
  /** Extra: an inbound message delivered at the agent's next webhook registration, before the PUT is answered. */
  deliverOnRegister: Record<string, unknown> | null;
  settings: WireChannelSettings;
  chatScript: ChatScript | null;
  conversations: Map<string, string>;
  /** The latest chat replies, newest last (at most CHAT_LOG_MAX): what the service sent. */
  chats: ChatRecord[];
  inbound: Map<string, InboundRecord>;
  /** Dialect names of this agent's answers, over its team's. */
  dialect: string[];
}

export interface SentMessage {
  messageId: string;
  agentId: string;
  teamId: string;
  to: string;
  type: 'text' | 'image' | 'document';
  text: string | null;
  imageUrl: string | null;
  documentUrl: string | null;
  documentFilename: string | null;
  timestamp: string;
}

export class World {
  readonly teams = new Map<string, Team>();
  readonly teamsByKey = new Map<string, Team>();
  readonly agents = new Map<string, Agent>();
  contacts = new Set<string>();
  sent: SentMessage[] = [];

  clear(): void {
    this.teams.clear();
    this.teamsByKey.clear();
    this.agents.clear();
    this.contacts = new Set();
    this.sent = [];
  }
}

export const MAX_LOG = 1000;

export function pushBounded<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > MAX_LOG) list.splice(0, list.length - MAX_LOG);
}

export function keyHint(key: string): string {
  return `…${key.slice(-4)}`;
}
