// What the emulated service puts on the wire, declared here and nowhere else: the emulator plays the
// service, so it must not borrow the client's types (a shared type would let both sides drift together
// and every test still pass). Shapes as in docs/service-api.md; the fields it leaves open as in
// docs/service-assumptions.md.

type WireSessionState = 'unlinked' | 'pairing' | 'connected' | 'reconnecting';

/** The session status of GET/POST .../whatsapp/session (docs/service-api.md §2.2, §4.1–4.2). */
export interface WireSession {
  state: WireSessionState;
  connected: boolean;
  linked: boolean;
  needsScan: boolean;
  /** PNG data URL while pairing, else null. */
  qr: string | null;
  /** Digits of the linked number, else null. */
  phone: string | null;
  /** Whether the service holds a connection right now (ASSUMPTION A-LIVE). */
  live: boolean;
}

/** PATCH .../whatsapp/settings body and answer (docs/service-api.md §2.7; ASSUMPTION A-SETTINGS). */
export interface WireChannelSettings {
  groups: boolean;
  readReceipts: boolean;
  deliveryReceipts: boolean;
}

/** POST .../chat answer, and the `done` event of a stream (docs/service-api.md §2.8; ASSUMPTION A-CHAT-RESP). */
export interface WireChatResult {
  reply: string;
  conversationId: string;
  actions: Array<{ name: string; [key: string]: unknown }>;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}
