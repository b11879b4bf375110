// Limits on what a person types, and default ports, as plain data for every runtime: the core's rules, the app's
// request checks and the renderer's inputs (maxLength) read the same numbers from here.

/** The longest team name or agent label, in characters. */
export const LABEL_MAX_LENGTH = 64;

/**
 * The tunnel receiver's port unless the person picks another: fixed, so a hook URL registered with
 * the service still reaches the app after a restart. Assigned to no service by IANA, and below the
 * 49152–65535 range macOS and Windows draw outgoing ports from (Linux draws from 32768–60999, so an
 * outgoing connection may rarely hold it: that is reported like any other holder).
 */
export const DEFAULT_TUNNEL_PORT = 47615;

/**
 * An agent id, everywhere one is taken (a team's agents, a hook URL's path, a command's flags): what the
 * service accepts in a path segment, and the dashboard's ids fit — a letter or digit first, then letters,
 * digits or `. _ ~ : @ -`, at most 200 characters. Ids are compared exactly: `Bot` and `bot` are two agents.
 */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._~:@-]{0,199}$/;

/** The rule above in words, after the field's name ("agent id must be …"). */
export const AGENT_ID_RULE = 'must be letters, digits or . _ ~ : @ - (no slashes or spaces)';
