// One line for a message, as the contact list and a notification show it.
import { describe, expect, it } from 'vitest';
import { messageLine } from '../../../src-shared/message-words';

describe('messageLine', () => {
  it('text: the first line only', () => {
    expect(messageLine({ type: 'text', text: 'is my order late?\nsecond line' })).toBe('is my order late?');
  });

  it('a picture says so, its caption after; never a made-up file name', () => {
    const media = { filename: 'image-wamid_f85cb.png' };
    expect(messageLine({ type: 'image', text: 'the damaged box', media })).toBe('Picture: the damaged box');
    expect(messageLine({ type: 'image', text: '', media })).toBe('Picture');
  });

  it('a document by its name; another kind by its kind', () => {
    expect(messageLine({ type: 'document', text: '', media: { filename: 'invoice.pdf' } })).toBe(
      'Document: invoice.pdf',
    );
    expect(messageLine({ type: 'document', text: 'for May' })).toBe('Document: for May');
    expect(messageLine({ type: 'audio', text: '' })).toBe('Audio message');
  });

  it('cut short with an ellipsis at max characters', () => {
    const line = messageLine({ type: 'text', text: 'x'.repeat(200) }, 120);
    expect(line).toHaveLength(120);
    expect(line.endsWith('…')).toBe(true);
  });
});
