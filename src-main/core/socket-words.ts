// A socket or undici error code in people's words, for any caller and whatever it was talking to:
// the service client says "The service could not be reached: it refused the connection.", the
// tunnel's forward says "the local app refused the connection (is it running on that port?)". The
// one table of these words: each entry is a clause built around the caller's subject, plus, where
// there is something to check, a hint for a server that may simply not be running.

/** Who the words are about, as the caller's sentence names it. */
export interface Subject {
  /** "it" (after a sentence that already named it), "the local app". */
  readonly name: string;
  /** "its", "the local app's". */
  readonly possessive: string;
}

/** The subject for words that follow a sentence naming it ("The service could not be reached: …"). */
export const IT: Subject = { name: 'it', possessive: 'its' };

export interface SocketWords {
  /** A lower-case clause without a full stop: "the local app refused the connection". */
  words: string;
  /** A question to check when the server may simply not be running (callers about a remote service leave it out). */
  hint?: string;
}

interface Entry {
  say: (s: Subject) => string;
  hint?: string;
}

const REFUSED: Entry = { say: (s) => `${s.name} refused the connection`, hint: 'is it running on that port?' };
const CLOSED_BY_PEER: Entry = { say: (s) => `${s.name} closed the connection before answering` };
/** The client's own connection went down (a lane destroyed, a request aborted with it) before the answer. */
const CLOSED_UNDER_REQUEST: Entry = {
  say: (s) => `the connection to ${s.name} was closed before this request was answered`,
};
const NOT_FOUND: Entry = { say: (s) => `${s.possessive} host name was not found` };
const NO_LOOKUP: Entry = { say: (s) => `${s.possessive} host name could not be looked up` };
const NO_ROUTE: Entry = { say: (s) => `the network has no route to ${s.name}` };
const BAD_CERT: Entry = { say: (s) => `${s.possessive} TLS certificate was not accepted` };

const WORDS: Readonly<Record<string, Entry>> = {
  ECONNREFUSED: REFUSED,
  ECONNRESET: CLOSED_BY_PEER,
  EPIPE: CLOSED_BY_PEER,
  UND_ERR_SOCKET: CLOSED_BY_PEER,
  UND_ERR_CLOSED: CLOSED_UNDER_REQUEST,
  UND_ERR_INFO: CLOSED_UNDER_REQUEST,
  UND_ERR_ABORTED: CLOSED_UNDER_REQUEST,
  ENOTFOUND: NOT_FOUND,
  EAI_AGAIN: NO_LOOKUP,
  EHOSTUNREACH: NO_ROUTE,
  ENETUNREACH: NO_ROUTE,
  ENETDOWN: NO_ROUTE,
  CERT_HAS_EXPIRED: BAD_CERT,
  DEPTH_ZERO_SELF_SIGNED_CERT: BAD_CERT,
  SELF_SIGNED_CERT_IN_CHAIN: BAD_CERT,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: BAD_CERT,
  ERR_TLS_CERT_ALTNAME_INVALID: BAD_CERT,
  UND_ERR_CONNECT_TIMEOUT: { say: (s) => `${s.name} did not accept the connection in time` },
  UND_ERR_HEADERS_TIMEOUT: { say: (s) => `${s.name} did not answer in time` },
  UND_ERR_BODY_TIMEOUT: { say: (s) => `${s.name} did not finish its answer in time` },
};

/** What an error code means, about `subject`; undefined for a code without words. */
export function socketWords(code: string | undefined, subject: Subject): SocketWords | undefined {
  if (code === undefined || !Object.hasOwn(WORDS, code)) return undefined;
  const entry = WORDS[code]!;
  const out: SocketWords = { words: entry.say(subject) };
  if (entry.hint !== undefined) out.hint = entry.hint;
  return out;
}
