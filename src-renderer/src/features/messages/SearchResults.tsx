// What the search field found over every conversation of every agent (messages.search): the
// contacts whose number or local name match, then the messages whose text, caption or file name
// do, newest first, each with its matches marked and the agent it was written to. A hit is a link
// to its conversation.
import type { MessageContactDTO, MessageDTO, MessageSearchDTO } from '../../../../src-shared/contract';
import { messageLine } from '../../../../src-shared/message-words';
import { messagesHref } from '../../router/routes';
import { Highlight } from './Highlight';
import { whenOf } from './format';

interface Open {
  agentId: string;
  contact: string;
}

interface Props {
  result: MessageSearchDTO;
  open: Open | null;
  /** The agent's name on screen. */
  labelOf(c: { teamId: string | null; agentId: string }): string;
}

const isOpen = (open: Open | null, c: { agentId: string; contact: string }) =>
  open !== null && open.agentId === c.agentId && open.contact === c.contact;

/** One line of text: its line breaks as spaces (one character for one, so the ranges still fit). */
const oneLine = (text: string) => text.replace(/[\r\n\t]/g, ' ');

function ContactHit({
  hit,
  current,
  label,
}: {
  hit: MessageSearchDTO['contacts'][number];
  current: boolean;
  label: string;
}) {
  const c: MessageContactDTO = hit.contact;
  return (
    <li>
      <a
        className="messages-contact messages-hit"
        href={messagesHref(c.teamId, c.agentId, c.contact)}
        aria-current={current ? 'true' : undefined}
      >
        <span className="messages-contact-name">
          {hit.field === 'name' && c.name !== undefined ? <Highlight text={c.name} ranges={hit.ranges} /> : c.name}
          {c.name !== undefined && ' '}
          {hit.field === 'contact' ? (
            <Highlight text={c.contact} ranges={hit.ranges} />
          ) : c.name === undefined ? (
            c.contact
          ) : (
            <span className="muted">{c.contact}</span>
          )}
        </span>
        <span className="messages-contact-last muted">
          {c.last.direction === 'out' ? 'You: ' : ''}
          {messageLine(c.last)}
        </span>
        <span className="messages-contact-agent muted">{label}</span>
      </a>
    </li>
  );
}

function MessageHit({
  hit,
  name,
  current,
  label,
}: {
  hit: MessageSearchDTO['messages'][number];
  name: string | undefined;
  current: boolean;
  label: string;
}) {
  const m: MessageDTO = hit.message;
  const filename = m.media?.filename;
  return (
    <li>
      <a
        className="messages-contact messages-hit"
        href={messagesHref(m.teamId, m.agentId, m.contact)}
        aria-current={current ? 'true' : undefined}
      >
        <span className="messages-contact-name">{name ?? m.contact}</span>
        <span className="messages-contact-time muted">{whenOf(m.at)}</span>
        <span className="messages-contact-last">
          {m.direction === 'out' ? 'You: ' : ''}
          {hit.field === 'filename' && filename !== undefined ? (
            <>
              Document: <Highlight text={oneLine(filename)} ranges={hit.ranges} />
            </>
          ) : (
            <Highlight text={oneLine(m.text)} ranges={hit.ranges} lead />
          )}
        </span>
        <span className="messages-contact-agent muted">{label}</span>
      </a>
    </li>
  );
}

export function SearchResults({ result, open, labelOf }: Props) {
  // The names the contacts found carry, for the messages of the same numbers.
  const names = new Map<string, string>();
  for (const h of result.contacts) if (h.contact.name !== undefined) names.set(h.contact.contact, h.contact.name);
  return (
    <div className="messages-results">
      <p className="messages-results-scope muted">Found in the conversations of every agent.</p>
      {result.contacts.length > 0 && (
        <>
          <h3 className="messages-results-head">Contacts found ({result.contacts.length})</h3>
          <ul className="messages-contacts" aria-label="Contacts found">
            {result.contacts.map((h) => (
              <ContactHit
                key={`${h.contact.agentId}/${h.contact.contact}`}
                hit={h}
                current={isOpen(open, h.contact)}
                label={labelOf(h.contact)}
              />
            ))}
          </ul>
        </>
      )}
      {result.messages.length > 0 && (
        <>
          <h3 className="messages-results-head">Messages found ({result.messages.length})</h3>
          <ul className="messages-contacts" aria-label="Messages found">
            {result.messages.map((h) => (
              <MessageHit
                key={`${h.message.agentId}/${h.message.key}`}
                hit={h}
                name={names.get(h.message.contact)}
                current={isOpen(open, h.message)}
                label={labelOf(h.message)}
              />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
