// Recipients: E.164 numbers in the many ways people type them, or full WhatsApp JIDs.
// Garbage is rejected here, before any request, with a message naming what was wrong.
import { InvalidRequest } from './errors';

const PERSON_JID_DOMAIN = 's.whatsapp.net';
const GROUP_JID_DOMAIN = 'g.us';
const MIN_DIGITS = 8;
const MAX_DIGITS = 15;

function invalid(message: string): InvalidRequest {
  return new InvalidRequest({ code: 'INVALID_RECIPIENT', message });
}

function show(input: string): string {
  const s = input.length > 40 ? `${input.slice(0, 40)}…` : input;
  return JSON.stringify(s);
}

/** Digits of a phone number typed as `+1 (555) 010-2000`, `1-555-010-2000`, `15550102000`… */
function phoneDigits(raw: string, what: string): string {
  const s = raw.trim();
  if (s === '') throw invalid(`${what} is empty; give a phone number with its country code, e.g. +15550102000.`);
  if (/[a-z]/i.test(s)) throw invalid(`${what} ${show(raw)} contains letters; a phone number has only digits.`);
  if (!/^[+\d\s().-]+$/.test(s)) {
    throw invalid(
      `${what} ${show(raw)} has characters a phone number cannot have (only digits, spaces, + ( ) - . are allowed).`,
    );
  }
  const digits = s.replace(/\D/g, '');
  if (digits.length === 0) throw invalid(`${what} ${show(raw)} has no digits.`);
  if (s.indexOf('+', 1) !== -1) throw invalid(`${what} ${show(raw)} has a "+" that is not at the start.`);
  if (digits.startsWith('0')) {
    throw invalid(
      `${what} ${show(raw)} starts with 0; write the number with its country code (E.164), e.g. +15550102000.`,
    );
  }
  if (digits.length < MIN_DIGITS)
    throw invalid(`${what} ${show(raw)} is too short: ${digits.length} digits, at least ${MIN_DIGITS} needed.`);
  if (digits.length > MAX_DIGITS)
    throw invalid(`${what} ${show(raw)} is too long: ${digits.length} digits, at most ${MAX_DIGITS} allowed.`);
  return digits;
}

function validateJid(input: string): string {
  const s = input.trim();
  const at = s.indexOf('@');
  const local = s.slice(0, at);
  const domain = s.slice(at + 1).toLowerCase();
  if (domain === PERSON_JID_DOMAIN) {
    if (!/^\d+$/.test(local))
      throw invalid(`JID ${show(input)}: the part before @${PERSON_JID_DOMAIN} must be the phone number in digits.`);
    phoneDigits(local, `JID ${show(input)}: the number`);
    return s;
  }
  if (domain === GROUP_JID_DOMAIN) {
    if (!/^\d{5,32}(-\d{1,20})?$/.test(local))
      throw invalid(`JID ${show(input)}: a group id before @${GROUP_JID_DOMAIN} is digits (optionally digits-digits).`);
    return s;
  }
  throw invalid(`JID ${show(input)}: unknown domain; expected @${PERSON_JID_DOMAIN} or @${GROUP_JID_DOMAIN}.`);
}

/**
 * A send recipient: `+<digits>` for a phone number (8–15 digits, no leading 0), or the JID as given
 * (trimmed) for `…@s.whatsapp.net` / `…@g.us`. Throws InvalidRequest otherwise.
 */
export function normalizeRecipient(input: unknown): string {
  if (typeof input !== 'string')
    throw invalid('Recipient is missing; give a phone number with its country code or a full JID.');
  if (input.includes('@')) return validateJid(input);
  return `+${phoneDigits(input, 'Phone number')}`;
}

/** Digits only, no plus (the form used in the contacts path). Accepts person JIDs; rejects group JIDs. */
export function normalizePhoneDigits(input: unknown): string {
  const r = normalizeRecipient(input);
  if (r.startsWith('+')) return r.slice(1);
  if (r.toLowerCase().endsWith(`@${GROUP_JID_DOMAIN}`)) throw invalid(`${show(r)} is a group, not a phone number.`);
  return r.slice(0, r.indexOf('@'));
}
