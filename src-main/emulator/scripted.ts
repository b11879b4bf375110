// Scripted contacts: numbers that answer what an agent sends them, so an inbox is alive without a
// phone. Each has a rule: echo (answers with what it was sent), fixed (always the same words), image
// (answers with a picture, the words as its caption) or silence (reads, never answers); with
// imageEvery N, every Nth answer of an echo or fixed contact is a picture instead. An answer is an
// ordinary inbound message (control.inbound): stored, and delivered signed to the agent's webhook
// when one is set. A contact is on WhatsApp (the contact check says exists: true).
import { z } from 'zod';
import type { Clock } from '../core/ports';
import { parseWith } from './http';
import type { SentMessage } from './model';
import { phone } from './validate';

const CONTACT_RULES = ['echo', 'fixed', 'image', 'silence'] as const;
type ContactRule = (typeof CONTACT_RULES)[number];

export const scriptedContactSchema = z.strictObject({
  phone,
  name: z.string().max(200).optional(),
  rule: z.enum(CONTACT_RULES, { error: `expected one of ${CONTACT_RULES.join(', ')}` }),
  /** fixed: the answer; image: the caption. */
  reply: z.string().min(1).max(4096).optional(),
  imageEvery: z.number().int().min(1).max(1000).optional(),
  /** How long the contact takes to answer (ms). */
  delayMs: z.number().int().min(0).max(600_000).optional(),
  /** Answers only these agents (default: any agent that writes to it). */
  agentIds: z.array(z.string().min(1).max(128)).max(1000).optional(),
});

export interface ScriptedContact {
  phone: string;
  name: string | null;
  rule: ContactRule;
  reply: string | null;
  imageEvery: number | null;
  delayMs: number;
  agentIds: string[] | null;
  /** Answers given so far. */
  answers: number;
}

const DEFAULT_ANSWER_DELAY_MS = 800;

/** An answer: what control.inbound() takes for it. */
export interface ScriptedAnswer {
  from: string;
  type: 'text' | 'image';
  text?: string;
  caption?: string;
}

export interface ScriptedDeps {
  clock: Clock;
  /** An inbound message from the contact to the agent (throws when the agent cannot receive). */
  inbound(agentId: string, input: ScriptedAnswer): unknown;
  /** The contact is on WhatsApp. */
  known(phoneDigits: string): void;
}

/** The digits of a recipient (+digits, digits or a person's JID); null for a group. */
function digitsOf(to: string): string | null {
  const m = /^\+?(\d{6,15})(@s\.whatsapp\.net)?$/i.exec(to.trim());
  return m ? m[1]! : null;
}

export class ScriptedContacts {
  private readonly contacts = new Map<string, ScriptedContact>();
  private readonly timers = new Set<unknown>();

  constructor(private readonly d: ScriptedDeps) {}

  set(raw: unknown): ScriptedContact {
    const input = parseWith(scriptedContactSchema, raw);
    const digits = input.phone.replace(/^\+/, '');
    const c: ScriptedContact = {
      phone: digits,
      name: input.name ?? null,
      rule: input.rule,
      reply: input.reply ?? null,
      imageEvery: input.imageEvery ?? null,
      delayMs: input.delayMs ?? DEFAULT_ANSWER_DELAY_MS,
      agentIds: input.agentIds ?? null,
      answers: 0,
    };
    this.contacts.set(digits, c);
    this.d.known(digits);
    return { ...c };
  }

  remove(phoneNumber: string): boolean {
    return this.contacts.delete(phoneNumber.replace(/^\+/, ''));
  }

  list(): ScriptedContact[] {
    return [...this.contacts.values()].map((c) => ({ ...c, agentIds: c.agentIds ? [...c.agentIds] : null }));
  }

  /** Forgets every contact and every answer still waiting. */
  clear(): void {
    for (const t of this.timers) this.d.clock.clearTimeout(t);
    this.timers.clear();
    this.contacts.clear();
  }

  /** A send went out: the contact it went to answers after its delay (by its rule). */
  onSent(m: SentMessage): void {
    const digits = digitsOf(m.to);
    const c = digits === null ? undefined : this.contacts.get(digits);
    if (!c || c.rule === 'silence') return;
    if (c.agentIds !== null && !c.agentIds.includes(m.agentId)) return;
    c.answers++;
    const answer = this.answerOf(c, m);
    const t = this.d.clock.setTimeout(() => {
      this.timers.delete(t);
      try {
        this.d.inbound(m.agentId, answer);
      } catch {
        // The agent cannot receive now (unlinked meanwhile): the answer is lost, as on a real phone.
      }
    }, c.delayMs);
    this.timers.add(t);
  }

  private answerOf(c: ScriptedContact, m: SentMessage): ScriptedAnswer {
    const words =
      c.rule === 'fixed'
        ? (c.reply ?? 'Thanks, got it.')
        : c.rule === 'image'
          ? (c.reply ?? 'Here is a picture.')
          : echoOf(m);
    const picture = c.rule === 'image' || (c.imageEvery !== null && c.answers % c.imageEvery === 0);
    const from = `+${c.phone}`;
    return picture ? { from, type: 'image', caption: words } : { from, type: 'text', text: words };
  }
}

function echoOf(m: SentMessage): string {
  const text = m.text?.trim() ?? '';
  if (m.type === 'text') return `You said: ${text}`;
  const what = m.type === 'image' ? 'picture' : `document${m.documentFilename ? ` ${m.documentFilename}` : ''}`;
  return text === '' ? `Got your ${what}.` : `Got your ${what}: ${text}`;
}
