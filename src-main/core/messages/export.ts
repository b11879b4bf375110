// A conversation as a file: JSON lines (one message a line, the stored fields), CSV (RFC 4180, a
// header row; a cell that a spreadsheet would take for a formula is prefixed with a quote) or plain
// text (one line per message: time, who, text). Times are ISO 8601 in UTC; the order is receive order.
import { shownContact } from '../../../src-shared/message-words';
import type { Message } from './store';

export type ExportFormat = 'jsonl' | 'csv' | 'text';

export interface ExportedConversation {
  filename: string;
  mimeType: string;
  content: string;
  count: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function row(m: Message): Record<string, string | number | boolean | null> {
  return {
    receivedAt: iso(m.at),
    eventAt: m.eventAt !== undefined ? iso(m.eventAt) : null,
    direction: m.direction,
    fromMe: m.fromMe,
    type: m.type,
    text: m.text,
    filename: m.media?.filename ?? null,
    mediaUrl: m.media?.url ?? null,
    status: m.status ?? null,
    messageId: m.messageId ?? null,
    simulated: m.simulated === true,
  };
}

const CSV_COLUMNS = [
  'receivedAt',
  'eventAt',
  'direction',
  'fromMe',
  'type',
  'text',
  'filename',
  'mediaUrl',
  'status',
  'messageId',
  'simulated',
] as const;

function csvCell(v: string | number | boolean | null): string {
  if (v === null) return '';
  let s = String(v);
  // A leading =, +, - or @ would be run as a formula by a spreadsheet.
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** What a file may be called: the agent and the contact, nothing a file system refuses. */
function fileStem(agentId: string, contact: string): string {
  return `messages-${agentId}-${contact}`.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120);
}

export function exportConversation(o: {
  agentId: string;
  contact: string;
  name: string | undefined;
  messages: readonly Message[];
  format: ExportFormat;
}): ExportedConversation {
  const stem = fileStem(o.agentId, o.contact);
  const rows = o.messages.map(row);
  if (o.format === 'jsonl')
    return {
      filename: `${stem}.jsonl`,
      mimeType: 'application/jsonl',
      content: rows.map((r) => `${JSON.stringify({ agentId: o.agentId, contact: o.contact, ...r })}\n`).join(''),
      count: rows.length,
    };
  if (o.format === 'csv') {
    const header = CSV_COLUMNS;
    const lines = [header.join(','), ...rows.map((r) => header.map((h) => csvCell(r[h] ?? null)).join(','))];
    return { filename: `${stem}.csv`, mimeType: 'text/csv', content: `${lines.join('\r\n')}\r\n`, count: rows.length };
  }
  const contact = shownContact(o.contact);
  const other = o.name !== undefined ? `${o.name} (${contact})` : contact;
  const lines = o.messages.map((m) => {
    const who = m.direction === 'in' ? other : m.fromMe ? `${o.agentId} (from the phone)` : o.agentId;
    const file = m.media?.filename !== undefined ? ` [${m.media.filename}]` : '';
    return `${iso(m.at)} ${who}: ${m.text}${file}`;
  });
  return {
    filename: `${stem}.txt`,
    mimeType: 'text/plain',
    content: `Conversation of ${o.agentId} with ${other}\n\n${lines.join('\n')}\n`,
    count: rows.length,
  };
}
