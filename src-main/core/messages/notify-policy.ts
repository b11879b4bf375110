// When a new message tells the person, and in which words: the one rule behind the desktop's native
// notifications and the browser host's in-app notices. Only a message a contact wrote (not one sent
// from this install or typed on the phone), recent, of an agent not muted, outside quiet hours, and
// not in the thread the person has open and focused. One notice per conversation (group): a burst
// from one contact replaces it ("3 new messages from …"), without a sound within BURST_MS of the one
// before. The text shows only when the settings allow it and the screen is not locked. No I/O: the
// caller (app/usecases/message-notices.ts) feeds it messages, the unread count and the names.
import { inQuietHours } from '../monitor/time';
import { systemLocalTime, type LocalTime } from '../monitor/types';
import { contactKey } from './inbound';
import type { Message } from './store';
import { messageLine } from '../../../src-shared/message-words';

interface MessageNotifySettings {
  enabled: boolean;
  showText: boolean;
  quietHours: { enabled: boolean; start: string; end: string };
  muted: ReadonlyArray<{ teamId: string; agentId: string }>;
}

/** What the caller knows of the message's place: its team, the names to show, the unread count. */
export interface NotifyContext {
  teamId: string | null;
  /** The agent as people name it: "Support bot (a7)", or its id. */
  agentName: string;
  /** The contact as shown: its local name, or its number. */
  contactName: string;
  /** Unread messages of the conversation, this one included. */
  unread: number;
}

interface MessageNotice {
  /** One per conversation: a notice of the same group replaces the one before. */
  group: string;
  teamId: string | null;
  agentId: string;
  contact: string;
  count: number;
  title: string;
  body: string;
  /** The body without the message's text. */
  privateBody: string;
  silent: boolean;
}

type SkipReason = 'not-inbound' | 'old' | 'disabled' | 'muted' | 'quiet-hours' | 'open-thread';

type NotifyDecision = { show: MessageNotice } | { skip: SkipReason };

/** Notices of one conversation closer together than this replace each other without a sound. */
const BURST_MS = 60_000;
/** A message older than this when it is stored (a log read again, a late delivery) notifies no one. */
const RECENT_MS = 10 * 60_000;
const PREVIEW_CHARS = 120;

interface NotifyPolicyOptions {
  now(): number;
  settings(): MessageNotifySettings;
  localTime?: LocalTime;
}

/** The group of a conversation: agent and contact. */
function noticeGroup(agentId: string, contact: string): string {
  return `${agentId}/${contactKey(contact)}`;
}

export class MessageNotifyPolicy {
  private readonly local: LocalTime;
  /** group → when its notice last showed, and its conversation. */
  private readonly shown = new Map<string, { at: number; agentId: string; contact: string }>();
  private openThread: string | null = null;
  private locked = false;

  constructor(private readonly o: NotifyPolicyOptions) {
    this.local = o.localTime ?? systemLocalTime;
  }

  /** The thread the person has open with focus (null: none). */
  setOpenThread(t: { agentId: string; contact: string } | null): void {
    this.openThread = t ? noticeGroup(t.agentId, t.contact) : null;
  }

  /** The OS screen locked or unlocked (as far as the platform tells). */
  setScreenLocked(locked: boolean): void {
    this.locked = locked;
  }

  get screenLocked(): boolean {
    return this.locked;
  }

  decide(m: Message, ctx: NotifyContext): NotifyDecision {
    if (m.direction !== 'in' || m.fromMe || m.sendId !== undefined) return { skip: 'not-inbound' };
    const now = this.o.now();
    if (m.at < now - RECENT_MS) return { skip: 'old' };
    const s = this.o.settings();
    if (!s.enabled) return { skip: 'disabled' };
    if (s.muted.some((x) => x.agentId === m.agentId && (ctx.teamId === null || x.teamId === ctx.teamId)))
      return { skip: 'muted' };
    if (s.quietHours.enabled && inQuietHours(s.quietHours, now, this.local)) return { skip: 'quiet-hours' };
    const group = noticeGroup(m.agentId, m.contact);
    if (this.openThread === group) return { skip: 'open-thread' };
    const last = this.shown.get(group)?.at;
    this.shown.set(group, { at: now, agentId: m.agentId, contact: m.contact });
    const count = Math.max(1, ctx.unread);
    const privateBody = `To ${ctx.agentName}`;
    return {
      show: {
        group,
        teamId: ctx.teamId,
        agentId: m.agentId,
        contact: m.contact,
        count,
        // A simulated (or replayed) message says so: never from WhatsApp.
        title: `${count === 1 ? 'New message' : `${count} new messages`} from ${ctx.contactName}${m.simulated ? ' (simulated)' : ''}`,
        body: s.showText && !this.locked ? `${messageLine(m, PREVIEW_CHARS)}\n${privateBody}` : privateBody,
        privateBody,
        silent: last !== undefined && now - last < BURST_MS,
      },
    };
  }

  /**
   * The conversations read (unread 0) among those notified: their notices close. `unreadOf` answers
   * a conversation's unread count now.
   */
  readGroups(unreadOf: (agentId: string, contact: string) => number): string[] {
    const done: string[] = [];
    for (const [g, x] of this.shown) if (unreadOf(x.agentId, x.contact) === 0) done.push(g);
    for (const g of done) this.shown.delete(g);
    return done;
  }
}
