// One message in a thread: inbound on one side, outbound on the other; media, text, time, and the
// status of a send (failed with why). A simulated or replayed message says so.
import type { MessageDTO } from '../../../../src-shared/contract';
import { errorLine } from '../../components/errors';
import { formatTimeOfDay } from '../../components/time';
import { MessageMedia } from './MessageMedia';
import { sentByWords } from '../../../../src-shared/words';

export function Bubble({ m }: { m: MessageDTO }) {
  return (
    <li className={`messages-bubble ${m.direction === 'in' ? 'in' : 'out'}`}>
      {m.type !== 'text' && <MessageMedia m={m} />}
      {m.text && <p className="messages-text">{m.text}</p>}
      <p className="messages-meta muted">
        {m.simulated && <span className="badge badge-unknown">Simulated, not from WhatsApp</span>}{' '}
        {formatTimeOfDay(m.at)}
        {m.fromMe && ' · from the phone'}
        {m.direction === 'out' && !m.fromMe && m.status !== 'failed' && ` · ${m.status ?? 'sent'}`}
      </p>
      {m.status === 'failed' && m.error && <p className="messages-failed">Not sent: {errorLine(m.error)}</p>}
      {m.direction === 'out' && m.sentBy && <p className="messages-sent-by muted">{sentByWords(m.sentBy)}</p>}
    </li>
  );
}
