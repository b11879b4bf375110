// What others wrote (a message's text, a contact's name, a file name), made safe to print on a terminal:
// C0 and C1 control characters, DEL and the bidirectional controls are shown as visible escapes ("\x1b",
// "\u202e") instead of being written raw, so no text a stranger sends can set the terminal's title, clear
// it, colour it, or reorder what is printed around it. Line breaks and tabs become spaces unless kept.

// C0 (but tab and newline, handled below), DEL, C1; the bidi embeddings, overrides, isolates and marks.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(c: string): string {
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The text with every control and bidi character shown as an escape; `lines` keeps newlines (thread bodies). */
export function terminalSafe(text: string, opts: { lines?: boolean } = {}): string {
  const flat = opts.lines ? text.replace(/\r\n?/g, '\n') : text.replace(/[\r\n\t]+/g, ' ');
  return flat.replace(/\t/g, ' ').replace(UNSAFE, escapeOne);
}

/** Whether a name holds characters that would be escaped (names refuse them, as team labels do). */
export function hasUnsafeCharacters(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text) || /[\r\n\t]/.test(text);
}
