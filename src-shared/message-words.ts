// How a message reads in one line (the contact list, a notification): its text's first line; a
// picture or a document says what it is first ("Picture: caption", "Document: name.pdf"). And how a contact
// reads: a person's number with its +, a group's JID as kept.

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

/** +digits for a person, the JID as kept for a group (a number already shown with its + stays as it is). */
export function shownContact(contact: string): string {
  return /^\d+$/.test(contact) ? `+${contact}` : contact;
}
