// @vitest-environment jsdom
// Long plain runs are cut into fixed-size text nodes while a reply streams; the text must come out
// exactly the same, and a cut never splits a surrogate pair (an emoji at a cut point).
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Markdown, renderInline } from '../../../src-renderer/src/features/chat/markdown';

describe('markdown plain-text pieces', () => {
  it('keeps the exact text of a long reply with an emoji across the 1,024-character cut', () => {
    const text = `${'a'.repeat(1023)}😀${'b'.repeat(2000)} and **bold** then ${'c'.repeat(1500)}`;
    const { container } = render(<Markdown text={text} />);
    expect(container.textContent).toBe(text.replace('**bold**', 'bold'));
    const pieces = renderInline(text).filter((p): p is string => typeof p === 'string');
    expect(pieces.length).toBeGreaterThan(3);
    for (const p of pieces) {
      const last = p.charCodeAt(p.length - 1);
      expect(last >= 0xd800 && last <= 0xdbff, 'no piece ends inside a surrogate pair').toBe(false);
    }
  });
});
