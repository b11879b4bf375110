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
