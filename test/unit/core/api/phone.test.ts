import { describe, expect, it } from 'vitest';
import { InvalidRequest } from '../../../../src-main/core/api/errors';
import { normalizePhoneDigits, normalizeRecipient } from '../../../../src-main/core/api/phone';

describe('normalizeRecipient', () => {
  it.each([
    ['+1 (555) 010-2000', '+15550102000'],
    ['15550102000', '+15550102000'],
    ['+15550102000', '+15550102000'],
    ['1-555-010-2000', '+15550102000'],
    ['  +44 20 7946 0958 ', '+442079460958'],
    ['49.30.1234.5678', '+493012345678'],
    ['15550102000@s.whatsapp.net', '15550102000@s.whatsapp.net'],
    ['120363025246125486@g.us', '120363025246125486@g.us'],
    ['15550102000-1600000000@g.us', '15550102000-1600000000@g.us'],
  ])('%s → %s', (input, out) => {
    expect(normalizeRecipient(input)).toBe(out);
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['+', /no digits/],
    ['abc', /letters/],
    ['555-CALL-NOW', /letters/],
    ['1234567', /too short: 7 digits/],
    ['1234567890123456', /too long: 16 digits/],
    ['0155501020', /starts with 0/],
    ['+1 555 #010', /characters a phone number cannot have/],
    ['1+5550102000', /"\+" that is not at the start/],
    ['abc@s.whatsapp.net', /must be the phone number in digits/],
    ['123@s.whatsapp.net', /too short/],
    ['15550102000@example.com', /unknown domain/],
    ['abc@g.us', /group id/],
  ])('%j is rejected (%s)', (input, msg) => {
    let err: unknown;
    try {
      normalizeRecipient(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequest);
    expect((err as Error).message).toMatch(msg);
  });

  it('rejects a non-string', () => {
    expect(() => normalizeRecipient(undefined)).toThrow(InvalidRequest);
    expect(() => normalizeRecipient(15550102000)).toThrow(/missing/);
  });
});

describe('normalizePhoneDigits', () => {
  it('gives digits without plus for numbers and person JIDs', () => {
    expect(normalizePhoneDigits('+1 (555) 010-2000')).toBe('15550102000');
    expect(normalizePhoneDigits('15550102000@s.whatsapp.net')).toBe('15550102000');
  });
  it('rejects groups and garbage', () => {
    expect(() => normalizePhoneDigits('120363025246125486@g.us')).toThrow(/group/);
    expect(() => normalizePhoneDigits('x')).toThrow(InvalidRequest);
  });
});
