// Recipient validation as the person types — the same rules as the core's normalizeRecipient
// (src-main/core/api/phone.ts): E.164 digits (8–15, no leading 0) typed any common way, or a JID
// ending @s.whatsapp.net (person) or @g.us (group).
export type RecipientCheck =
  { ok: true; value: string; kind: 'phone' | 'person-jid' | 'group-jid' } | { ok: false; message: string };

const PERSON = 's.whatsapp.net';
const GROUP = 'g.us';
const MIN = 8;
const MAX = 15;

const fail = (message: string): RecipientCheck => ({ ok: false, message });

function digitsError(raw: string, what: string): string | null {
  const s = raw.trim();
  if (s === '') return `${what} is empty; give a phone number with its country code, e.g. +15550102000.`;
  if (/[a-z]/i.test(s)) return `${what} contains letters; a phone number has only digits.`;
  if (!/^[+\d\s().-]+$/.test(s))
    return `${what} has characters a phone number cannot have (only digits, spaces, + ( ) - . are allowed).`;
  const digits = s.replace(/\D/g, '');
  if (digits.length === 0) return `${what} has no digits.`;
  if (s.indexOf('+', 1) !== -1) return `${what} has a "+" that is not at the start.`;
  if (digits.startsWith('0'))
    return `${what} starts with 0; write it with its country code (E.164), e.g. +15550102000.`;
  if (digits.length < MIN) return `${what} is too short: ${digits.length} digits, at least ${MIN} needed.`;
  if (digits.length > MAX) return `${what} is too long: ${digits.length} digits, at most ${MAX} allowed.`;
  return null;
}

export function checkRecipient(input: string): RecipientCheck {
  const s = input.trim();
  if (s.includes('@')) {
    const at = s.indexOf('@');
    const local = s.slice(0, at);
    const domain = s.slice(at + 1).toLowerCase();
    if (domain === PERSON) {
      if (!/^\d+$/.test(local)) return fail(`The part before @${PERSON} must be the phone number in digits.`);
      const e = digitsError(local, 'The number in this JID');
      return e ? fail(e) : { ok: true, value: s, kind: 'person-jid' };
    }
    if (domain === GROUP) {
      if (!/^\d{5,32}(-\d{1,20})?$/.test(local))
        return fail(`A group id before @${GROUP} is digits (optionally digits-digits).`);
      return { ok: true, value: s, kind: 'group-jid' };
    }
    return fail(`Unknown JID domain; expected @${PERSON} or @${GROUP}.`);
  }
  const e = digitsError(s, 'The phone number');
  return e ? fail(e) : { ok: true, value: `+${s.replace(/\D/g, '')}`, kind: 'phone' };
}
