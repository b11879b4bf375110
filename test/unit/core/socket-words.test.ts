// Socket and undici error codes in words: every known code reads for the service ("it", after
// "The service could not be reached: ") and for the local app; an unknown code has no words.
import { describe, expect, it } from 'vitest';
import { IT, socketWords, type Subject } from '../../../src-main/core/socket-words';

const LOCAL_APP: Subject = { name: 'the local app', possessive: "the local app's" };

/** Every code the service client and the tunnel's forward put in words. */
const CODES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_INFO',
  'UND_ERR_ABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
];

describe('socket words', () => {
  it.each(CODES)('%s has words for both subjects, each naming its subject', (code) => {
    const forService = socketWords(code, IT);
    const forApp = socketWords(code, LOCAL_APP);
    for (const said of [forService, forApp]) expect(said?.words).toMatch(/^[a-z][^.!]*[a-z]$/);
    expect(forService!.words).toMatch(/\bits?\b/);
    expect(forService!.words).not.toMatch(/local app|undefined/);
    expect(forApp!.words).toMatch(/\bthe local app('s)?\b/);
    expect(forApp!.words).not.toMatch(/\bit\b|undefined/);
    expect(forApp!.hint).toBe(forService!.hint);
  });

  it('says what happened with the subject in it', () => {
    expect(socketWords('ECONNREFUSED', LOCAL_APP)).toEqual({
      words: 'the local app refused the connection',
      hint: 'is it running on that port?',
    });
    expect(socketWords('ECONNREFUSED', IT)).toEqual({
      words: 'it refused the connection',
      hint: 'is it running on that port?',
    });
    expect(socketWords('ECONNRESET', LOCAL_APP)).toEqual({
      words: 'the local app closed the connection before answering',
    });
    expect(socketWords('ECONNRESET', IT)).toEqual({ words: 'it closed the connection before answering' });
    expect(socketWords('ENOTFOUND', IT)!.words).toBe('its host name was not found');
    expect(socketWords('EAI_AGAIN', LOCAL_APP)!.words).toBe("the local app's host name could not be looked up");
    expect(socketWords('ENETUNREACH', LOCAL_APP)!.words).toBe('the network has no route to the local app');
    expect(socketWords('UND_ERR_CLOSED', IT)!.words).toBe(
      'the connection to it was closed before this request was answered',
    );
    expect(socketWords('UND_ERR_BODY_TIMEOUT', LOCAL_APP)!.words).toBe(
      'the local app did not finish its answer in time',
    );
  });

  it('has no words for an unknown code, no code, or a name every object has', () => {
    for (const code of [
      'ETIMEDOUT_NOT_A_CODE',
      'econnrefused',
      '',
      'constructor',
      'toString',
      '__proto__',
      'hasOwnProperty',
    ]) {
      expect(socketWords(code, IT)).toBeUndefined();
      expect(socketWords(code, LOCAL_APP)).toBeUndefined();
    }
    expect(socketWords(undefined, IT)).toBeUndefined();
  });
});
