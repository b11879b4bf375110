// Limits on what a person types, as plain data for every runtime: the core's rules, the app's
// request checks and the renderer's inputs (maxLength) read the same numbers from here.

/** The longest team name or agent label, in characters. */
export const LABEL_MAX_LENGTH = 64;
