// How a message reads in the contact list and the thread: its first line, its day and its time.
import type { MessageDTO } from '../../../../src-shared/contract';

export function firstLine(m: MessageDTO): string {
  const line = m.text.split('\n')[0] ?? '';
  if (m.type === 'text') return line;
  const what = m.media?.filename ?? (m.type === 'image' ? 'Picture' : m.type === 'document' ? 'Document' : m.type);
  return line ? `${what}: ${line}` : what;
}

export const dayOf = (at: number) =>
  new Date(at).toLocaleDateString(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
export const timeOf = (at: number) =>
  new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
