// Recipient, phone and URL rules of the emulated service.
import { z } from 'zod';
import { isHttpUrl } from '../../src-shared/url';

const E164 = /^\+?\d{8,15}$/;
const USER_JID = /^\d{8,15}@s\.whatsapp\.net$/;
const GROUP_JID = /^[0-9A-Za-z-]{1,64}@g\.us$/;

function isPhone(value: string): boolean {
  return E164.test(value);
}

/** `+digits` or digits → digits; null when not an E.164 number. */
export function phoneDigits(value: string): string | null {
  return E164.test(value) ? value.replace(/^\+/, '') : null;
}

export function isRecipient(value: string): boolean {
  return E164.test(value) || USER_JID.test(value) || GROUP_JID.test(value);
}

export const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => isHttpUrl(v), 'expected an absolute http(s) URL');
export const phone = z.string().refine(isPhone, 'expected an E.164 number (8–15 digits, optional +)');
