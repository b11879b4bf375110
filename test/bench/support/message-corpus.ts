// The benchmarks' inbox: the same messages every run (a seeded generator), spread over agents and contacts,
// 60 % inbound deliveries and 40 % sends, a few words of a support conversation each. Used by the message
// store's benchmark (SQLite) and the hub's (Postgres beside SQLite), so both measure one corpus.
import type { Message } from '../../../src-main/core/messages/store';

export const WORDS = (
  'order parcel delivery refund invoice shipping tracking address payment receipt broken hinge ' +
  'package courier warehouse return exchange discount coupon voucher account password login email ' +
  'phone number update cancel subscription monthly yearly plan upgrade downgrade support question ' +
  'answer thanks hello morning evening tomorrow yesterday today weekend holiday price quote estimate'
).split(' ');

/** A small deterministic generator (the same corpus every run). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]!;
}

export interface CorpusShape {
  agents: number;
  contacts: number;
  /** The first message's time (ms); message j is j seconds later. */
  start: number;
  /** Messages carry the event's time too (as the service's deliveries do). */
  eventAt?: boolean;
}

/** The agent of message j. */
export const agentOf = (shape: Pick<CorpusShape, 'agents'>, j: number): string =>
  `agent-${String(j % shape.agents).padStart(2, '0')}`;

/** The contact of message j: one of `contacts` phone numbers. */
export const contactOf = (shape: Pick<CorpusShape, 'agents' | 'contacts'>, j: number): string =>
  String(15550000000 + (Math.floor(j / shape.agents) % shape.contacts));

/**
 * The corpus as chunks of up to `chunk` messages, in order, as a store's `add` takes them; `rand` is the
 * generator the words come from (rng(42) for the stored corpus).
 */
export function* corpusChunks(
  shape: CorpusShape,
  total: number,
  chunk: number,
  rand: () => number = rng(42),
): Generator<Array<{ message: Message; wins: boolean }>> {
  for (let i = 0; i < total; i += chunk) {
    const list: Array<{ message: Message; wins: boolean }> = [];
    for (let j = i; j < Math.min(total, i + chunk); j++) {
      const words = Array.from({ length: 6 + Math.floor(rand() * 10) }, () => WORDS[Math.floor(rand() * WORDS.length)]);
      const inbound = rand() < 0.6;
      const at = shape.start + j * 1000;
      list.push({
        message: {
          key: `wamid_${j}`,
          agentId: agentOf(shape, j),
          contact: contactOf(shape, j),
          seq: 0,
          at,
          ...(shape.eventAt ? { eventAt: at } : {}),
          direction: inbound ? 'in' : 'out',
          fromMe: false,
          type: 'text',
          text: `${words.join(' ')} #${j}`,
          messageId: `wamid_${j}`,
          ...(inbound ? { deliveryId: `dlv_${j}` } : { sendId: `s${j}`, via: 'messages' as const, status: 'sent' }),
        },
        wins: !inbound,
      });
    }
    yield list;
  }
}
