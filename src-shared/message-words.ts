// How a message reads in one line (the contact list, a notification): its text's first line; a
// picture or a document says what it is first ("Picture: caption", "Document: name.pdf").

interface MessageLike {
  type: string;
  text: string;
  media?: { filename?: string };
}

/** The message's first line, with what it is for anything but text; `max` cuts it short with "…". */
export function messageLine(m: MessageLike, max = Infinity): string {
  const line = (m.text.split('\n')[0] ?? '').trim();
  const what =
    m.type === 'text'
      ? null
      : m.type === 'image'
        ? 'Picture'
        : m.type === 'document'
          ? m.media?.filename
            ? `Document: ${m.media.filename}`
            : 'Document'
          : `${m.type.charAt(0).toUpperCase()}${m.type.slice(1)} message`;
  const whole = what === null ? line : line ? `${what}: ${line}` : what;
  return whole.length > max ? `${whole.slice(0, Math.max(1, max - 1))}…` : whole;
}
