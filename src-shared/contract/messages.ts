// The contract's messages: Messages: the conversations on the agents' numbers.
// Plain data for every runtime; see ../contract.ts for the requests and events that carry them.
import type { ErrorDTO } from './errors';
import type { QuietHoursDTO } from './teams';

// ---------------------------------------------------------------------------------------------
// Messages: the conversations on the agents' numbers (inbound deliveries and this install's sends)
// ---------------------------------------------------------------------------------------------

/** One message of a thread. `contact` is +digits for a person, the JID for a group. */
export interface MessageDTO {
  /** Unique in its agent: the service's message id, or this install's send id. */
  key: string;
  teamId: string | null;
  agentId: string;
  contact: string;
  /** The local receive order (what orders a thread, marks it read, pages it with beforeSeq); set on every stored message. */
  seq?: number;
  /** ms epoch: when it was received here (or when the send settled). */
  at: number;
  /** ms epoch: the event's own timestamp, as the sender's clock gave it (data only, never the order). */
  eventAt?: number;
  /** in: written by the contact; out: sent from this install, or from the phone (fromMe). */
  direction: 'in' | 'out';
  fromMe: boolean;
  /** text, image, document, or the service's own word. */
  type: string;
  /** The text, or the caption of the media. */
  text: string;
  media?: { url?: string; filename?: string; mimeType?: string; size?: number };
  messageId?: string;
  /** Sends: the service's status ('sent', …) or 'failed' (with error). */
  status?: string;
  error?: ErrorDTO;
  /** Sends: which part of this install made it. */
  via?: 'console' | 'messages' | 'cli';
  /** Sends made from a window: the clientRef it gave the send. */
  clientRef?: string;
  /** Sends through a team hub: the member who sent it (absent when not known: this machine's own sends). */
  sentBy?: string;
  /** Inbound: the tunnel delivery it came in (media is fetched through it). */
  deliveryId?: string;
  /** Inbound: simulated on this machine, or a replay of a stored delivery: never from WhatsApp. */
  simulated?: boolean;
}

export interface MessageContactDTO {
  teamId: string | null;
  agentId: string;
  contact: string;
  /** The local name given in this install. */
  name?: string;
  lastAt: number;
  last: MessageDTO;
  unread: number;
  count: number;
  /** Every message of it is simulated or replayed (never from WhatsApp): shown marked, never replied to. */
  simulated?: boolean;
}

/**
 * Why an agent's inbox may be missing messages: this app is not where its webhook delivers
 * ('not-registered'), another process writes the data folder ('receiver-elsewhere': `listen` or a
 * second app stores the deliveries), or the receiver is not running ('receiver-stopped').
 */
export type InboxGap = 'not-registered' | 'receiver-elsewhere' | 'receiver-stopped';

export interface InboxAgentDTO {
  teamId: string;
  agentId: string;
  unread: number;
  /** null: this app receives the agent's deliveries. */
  gap: InboxGap | null;
  /** The gap in people's words. */
  reason: string | null;
}

export interface MessageContactsDTO {
  contacts: MessageContactDTO[];
  /** The agents asked for, with their unread counts and why their inbox may be incomplete. */
  agents: InboxAgentDTO[];
  unread: number;
  retentionDays: number;
}

/** [start, end) offsets of a match in the field a search hit names. */
export type MatchRangeDTO = [number, number];

/** messages.search: messages whose text, caption or file name match; contacts whose number or local name do. */
export interface MessageSearchDTO {
  messages: Array<{ message: MessageDTO; field: 'text' | 'filename'; ranges: MatchRangeDTO[] }>;
  /** `ranges` are in `contact.contact` (as shown, with its +) or `contact.name`. */
  contacts: Array<{ contact: MessageContactDTO; field: 'contact' | 'name'; ranges: MatchRangeDTO[] }>;
}

/** messages.export: a conversation as a file's content, for the window to save or download. */
export interface MessageExportDTO {
  filename: string;
  mimeType: string;
  content: string;
  count: number;
}

/** When a new inbound message notifies (a native notification, or an in-app notice in the browser host). */
export interface MessageNotificationsDTO {
  enabled: boolean;
  /** Show the message's text (never while the screen is locked, when the platform tells). */
  showText: boolean;
  /** Local times; during them no notification (unread counts still change). */
  quietHours: QuietHoursDTO;
  /** Agents whose messages never notify. */
  muted: Array<{ teamId: string; agentId: string }>;
}

/** Unread inbound messages: every agent of every team, and the total (the sidebar, home rows, tray). */
export interface MessageUnreadDTO {
  total: number;
  agents: Array<{ teamId: string; agentId: string; unread: number }>;
}

/**
 * A notification of new inbound messages, one per conversation (group): a burst from one contact
 * replaces the one shown ("3 new messages from …"); `clear` closes it (the thread was read).
 */
export type MessageNoticeDTO =
  | {
      kind: 'show';
      group: string;
      teamId: string | null;
      agentId: string;
      contact: string;
      /** Unread messages of the conversation. */
      count: number;
      title: string;
      /** The text when the settings and the screen allow it, else words without it. */
      body: string;
      /** The body without the message's text (for a screen that locks while it shows). */
      privateBody: string;
      /** A repeat within a burst: replaces the one shown without a sound. */
      silent: boolean;
      /** The thread: #/messages?team=…&agent=…&with=… */
      route: string;
    }
  | { kind: 'clear'; group: string };

export interface MessageThreadDTO {
  messages: MessageDTO[];
  /** Older messages exist (ask again with before = the first one's at). */
  more: boolean;
  name?: string;
  /** Every message of the conversation is simulated or replayed: there is no one to reply to (messages.send refuses). */
  simulated?: boolean;
}
