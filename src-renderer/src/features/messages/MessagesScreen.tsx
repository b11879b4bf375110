// Messages: who wrote to the agents' numbers and what this install answered. On the left the
// contacts, most recent first, with unread counts and the last message's first line, one agent or
// all, searchable (numbers, local names, text); an agent whose inbox may be incomplete says why. On
// the right the open thread: day separators, inbound on one side and outbound on the other, each
// send's status (failed with why), and a composer that sends through the same path as the console.
// Opening a thread marks it read.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { AgentDTO, MessageContactDTO, MessageDTO } from '../../../../src-shared/contract';
import { EmptyState } from '../../components/EmptyState';
import { errorLine, errorText } from '../../components/errors';
import { messagesHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { threadKey } from '../../store/messages';
import { useApp } from '../../store/react';
import { ThreadTitle } from './ThreadTitle';
import './messages.css';

interface Props {
  teamId: string | null;
  agentId: string | null;
  contact: string | null;
}

const SEARCH_DELAY_MS = 200;

function firstLine(m: MessageDTO): string {
  const line = m.text.split('\n')[0] ?? '';
  if (m.type === 'text') return line;
  const what = m.media?.filename ?? (m.type === 'image' ? 'Picture' : m.type === 'document' ? 'Document' : m.type);
  return line ? `${what}: ${line}` : what;
}

const dayOf = (at: number) =>
  new Date(at).toLocaleDateString(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
const timeOf = (at: number) => new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

function AgentPicker({ agents, value, onPick }: { agents: AgentDTO[]; value: string; onPick(v: string): void }) {
  return (
    <label className="messages-agent">
      Agent{' '}
      <select value={value} onChange={(e) => onPick(e.target.value)}>
        <option value="">All agents</option>
        {agents.map((a) => (
          <option key={agentKey(a.teamId, a.agentId)} value={agentKey(a.teamId, a.agentId)}>
            {a.label}
          </option>
        ))}
      </select>
    </label>
  );
}

function ContactRow({ c, current, label }: { c: MessageContactDTO; current: boolean; label: string | null }) {
  return (
    <li>
      <a
        className="messages-contact"
        href={messagesHref(c.teamId, c.agentId, c.contact)}
        aria-current={current ? 'true' : undefined}
      >
        <span className="messages-contact-name">{c.name ?? c.contact}</span>
        {c.unread > 0 && (
          <span className="count" aria-label={`${c.unread} unread`}>
            {c.unread}
          </span>
        )}
        <span className="messages-contact-time muted">{timeOf(c.lastAt)}</span>
        <span className="messages-contact-last muted">
          {c.last.direction === 'out' ? 'You: ' : ''}
          {firstLine(c.last)}
        </span>
        {label && <span className="messages-contact-agent muted">{label}</span>}
      </a>
    </li>
  );
}

function Bubble({ m }: { m: MessageDTO }) {
  return (
    <li className={`messages-bubble ${m.direction === 'in' ? 'in' : 'out'}`}>
      {m.type !== 'text' && (
        <p className="messages-media">{m.media?.filename ?? (m.type === 'image' ? 'Picture' : m.type)}</p>
      )}
      {m.text && <p className="messages-text">{m.text}</p>}
      <p className="messages-meta muted">
        {timeOf(m.at)}
        {m.fromMe && ' · from the phone'}
        {m.direction === 'out' && !m.fromMe && m.status !== 'failed' && ` · ${m.status ?? 'sent'}`}
      </p>
      {m.status === 'failed' && m.error && <p className="messages-failed">Not sent: {errorLine(m.error)}</p>}
    </li>
  );
}

function Thread({ teamId, agentId, contact }: { teamId: string; agentId: string; contact: string }) {
  const key = threadKey(teamId, agentId, contact);
  const thread = useApp((s) => s.threads[key]);
  const loadThread = useApp((s) => s.loadThread);
  const loadOlder = useApp((s) => s.loadOlder);
  const markThreadRead = useApp((s) => s.markThreadRead);
  const sendReply = useApp((s) => s.sendReply);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const count = thread?.messages.length ?? 0;
  useEffect(() => void loadThread(teamId, agentId, contact), [loadThread, teamId, agentId, contact]);
  // Opening the thread, and each message that arrives while it is open, marks it read.
  useEffect(() => {
    if (count > 0) void markThreadRead(teamId, agentId, contact);
  }, [markThreadRead, teamId, agentId, contact, count]);
  const send = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim() || sending) return;
    setSending(true);
    const err = await sendReply(teamId, agentId, contact, text);
    setSending(false);
    if (err) setProblem(errorText(err));
    else {
      setProblem(null);
      setText('');
    }
  };
  const days: Array<{ day: string; messages: MessageDTO[] }> = [];
  for (const m of thread?.messages ?? []) {
    const day = dayOf(m.at);
    const last = days[days.length - 1];
    if (last?.day === day) last.messages.push(m);
    else days.push({ day, messages: [m] });
  }
  return (
    <section className="messages-thread" aria-label={`Conversation with ${thread?.name ?? contact}`}>
      <ThreadTitle teamId={teamId} agentId={agentId} contact={contact} name={thread?.name} />
      {thread?.error && <p role="alert">{errorText(thread.error)}</p>}
      {thread?.more && (
        <button type="button" className="link" onClick={() => void loadOlder(teamId, agentId, contact)}>
          Show older messages
        </button>
      )}
      {thread?.loaded && count === 0 && <p className="muted">No messages with this number yet.</p>}
      {days.map((d) => (
        <div key={d.day}>
          <p className="messages-day muted">{d.day}</p>
          <ol className="messages-list">
            {d.messages.map((m) => (
              <Bubble key={m.key} m={m} />
            ))}
          </ol>
        </div>
      ))}
      <form className="messages-composer" onSubmit={(e) => void send(e)}>
        <label htmlFor="messages-reply" className="sr-only">
          Reply
        </label>
        <textarea
          id="messages-reply"
          value={text}
          rows={2}
          placeholder="Write a reply"
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" disabled={sending || !text.trim()}>
          {sending ? 'Sending…' : 'Send'}
        </button>
        {problem && <p role="alert">{problem}</p>}
      </form>
    </section>
  );
}

export function MessagesScreen({ teamId, agentId, contact }: Props) {
  const inbox = useApp((s) => s.inbox);
  const loadInbox = useApp((s) => s.loadInbox);
  const agents = useApp(useShallow((s) => Object.values(s.agents)));
  const [search, setSearch] = useState(inbox.filter.search ?? '');
  const picked = teamId && agentId ? agentKey(teamId, agentId) : '';
  useEffect(() => {
    const t = setTimeout(
      () => {
        const filter = {
          ...(teamId ? { teamId } : {}),
          ...(agentId ? { agentId } : {}),
          ...(search.trim() ? { search: search.trim() } : {}),
        };
        void loadInbox(filter);
      },
      search ? SEARCH_DELAY_MS : 0,
    );
    return () => clearTimeout(t);
  }, [loadInbox, teamId, agentId, search]);
  const labelOf = useMemo(() => {
    const m = new Map(agents.map((a) => [agentKey(a.teamId, a.agentId), a.label]));
    return (c: { teamId: string | null; agentId: string }) =>
      c.teamId ? (m.get(agentKey(c.teamId, c.agentId)) ?? c.agentId) : c.agentId;
  }, [agents]);
  const pick = (v: string) => {
    const a = agents.find((x) => agentKey(x.teamId, x.agentId) === v);
    window.location.hash = a ? messagesHref(a.teamId, a.agentId) : messagesHref();
  };
  // Agents with the same gap share one notice (the same words once, their names together).
  const gaps = useMemo(() => {
    const byReason = new Map<string, { reason: string; names: string[]; keys: string[] }>();
    for (const a of inbox.agents) {
      if (a.gap === null || a.reason === null) continue;
      const g = byReason.get(a.reason) ?? { reason: a.reason, names: [], keys: [] };
      g.names.push(labelOf(a));
      g.keys.push(agentKey(a.teamId, a.agentId));
      byReason.set(a.reason, g);
    }
    return [...byReason.values()];
  }, [inbox.agents, labelOf]);
  const open = teamId && agentId && contact ? { teamId, agentId, contact } : null;
  return (
    <div className="messages">
      <h2>Messages</h2>
      <div className="messages-panes">
        <div className="messages-inbox">
          <AgentPicker agents={agents} value={picked} onPick={pick} />
          <label className="messages-search">
            Search{' '}
            <input
              type="search"
              value={search}
              placeholder="Number, name or text"
              onChange={(e) => setSearch(e.target.value)}
            />
          </label>
          {gaps.map((g) => (
            <p key={g.keys.join(' ')} className="messages-gap">
              <strong>{g.names.join(', ')}:</strong> {g.reason} <a href="#/tunnel">Open the Tunnel screen</a>
            </p>
          ))}
          {inbox.error && <p role="alert">{errorText(inbox.error)}</p>}
          {inbox.loaded && inbox.contacts.length === 0 && !inbox.error && (
            <EmptyState title={search.trim() ? 'No conversation matches.' : 'No messages yet.'}>
              <p className="muted">Messages are kept {inbox.retentionDays} days.</p>
            </EmptyState>
          )}
          <ul className="messages-contacts">
            {inbox.contacts.map((c) => (
              <ContactRow
                key={`${c.agentId}/${c.contact}`}
                c={c}
                current={open !== null && c.agentId === open.agentId && c.contact === open.contact}
                label={agentId ? null : labelOf(c)}
              />
            ))}
          </ul>
        </div>
        {open ? (
          <Thread key={`${open.teamId}/${open.agentId}/${open.contact}`} {...open} />
        ) : (
          <p className="messages-none muted">Choose a conversation.</p>
        )}
      </div>
    </div>
  );
}
