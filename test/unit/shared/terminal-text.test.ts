import { describe, expect, it } from 'vitest';
import { hasUnsafeCharacters, terminalSafe } from '../../../src-shared/terminal-text';

describe('terminalSafe', () => {
  it('shows a title-setting OSC, a screen clear, colours and C1 as escapes, never raw', () => {
    const out = terminalSafe('\u001b]0;pwned\u0007hi \u001b[2J\u001b[31mred\u001b[0m \u009b2J');
    expect(out).toBe('\\x1b]0;pwned\\x07hi \\x1b[2J\\x1b[31mred\\x1b[0m \\x9b2J');
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('shows the bidi overrides, isolates and marks as escapes', () => {
    expect(terminalSafe('abc\u202egnp.exe\u2066x\u2069\u200f')).toBe('abc\\u202egnp.exe\\u2066x\\u2069\\u200f');
  });

  it('flattens line breaks and tabs to spaces in one-line places, keeps newlines where asked', () => {
    expect(terminalSafe('a\r\nb\tc')).toBe('a b c');
    expect(terminalSafe('a\r\nb\rc', { lines: true })).toBe('a\nb\nc');
  });

  it('leaves ordinary text, accents and emoji as they are', () => {
    expect(terminalSafe('Grüße — 你好 👋 (+1 555)')).toBe('Grüße — 你好 👋 (+1 555)');
  });

  it('names with such characters are refused', () => {
    expect(hasUnsafeCharacters('Ann\u001b[2J')).toBe(true);
    expect(hasUnsafeCharacters('Ann\u202e')).toBe(true);
    expect(hasUnsafeCharacters('Ann\nB')).toBe(true);
    expect(hasUnsafeCharacters('Ann Lee')).toBe(false);
    expect(hasUnsafeCharacters('Ann\u202e')).toBe(true); // twice: no state kept between calls
  });
});
