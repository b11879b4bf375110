// Messages: who wrote to the agents' numbers and what this install answered. On the left the
// contacts, most recent first, with unread counts and the last message's first line, one agent or
// all; the search field looks through every conversation of every agent (numbers in any written
// form, local names, text, file names) and lists what it found in place of the contacts, its
// matches marked; an agent whose inbox may be incomplete says why. On
// the right the open thread: day separators, inbound on one side and outbound on the other, each
// send's status (failed with why), and a composer that sends through the same path as the console.
// Opening a thread marks it read.
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { EmptyState } from '../../components/EmptyState';
import { errorText } from '../../components/errors';
import { messagesHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { AgentPicker, ContactRow } from './ContactList';
import { NewConversation } from './NewConversation';
import { SearchResults } from './SearchResults';
import { DeleteAgentMessages } from './DeleteAgentMessages';
import { GapNotices } from './GapNotices';
import { Thread } from './Thread';
import './messages.css';

interface Props {
  teamId: string | null;
  agentId: string | null;
  contact: string | null;
}

const SEARCH_DELAY_MS = 200;

export function MessagesScreen({ teamId, agentId, contact }: Props) {
  const inbox = useApp((s) => s.inbox);
  const loadInbox = useApp((s) => s.loadInbox);
  const found = useApp((s) => s.search);
  const searchMessages = useApp((s) => s.searchMessages);
  const agents = useApp(useShallow((s) => Object.values(s.agents)));
  const [search, setSearch] = useState(found.query);
  const [starting, setStarting] = useState(false);
  const picked = teamId && agentId ? agentKey(teamId, agentId) : '';
  useEffect(() => {
    void loadInbox({ ...(teamId ? { teamId } : {}), ...(agentId ? { agentId } : {}) });
  }, [loadInbox, teamId, agentId]);
  // The search goes over every conversation, whichever agent is picked.
  useEffect(() => {
    const t = setTimeout(() => void searchMessages(search), search.trim() ? SEARCH_DELAY_MS : 0);
    return () => clearTimeout(t);
  }, [searchMessages, search]);
  const searching = search.trim() !== '';
  const labelOf = useMemo(() => {
    const m = new Map(agents.map((a) => [agentKey(a.teamId, a.agentId), a.label]));
    return (c: { teamId: string | null; agentId: string }) =>
      c.teamId ? (m.get(agentKey(c.teamId, c.agentId)) ?? c.agentId) : c.agentId;
  }, [agents]);
  const pick = (v: string) => {
    const a = agents.find((x) => agentKey(x.teamId, x.agentId) === v);
    window.location.hash = a ? messagesHref(a.teamId, a.agentId) : messagesHref();
  };
  const open = teamId && agentId && contact ? { teamId, agentId, contact } : null;
  return (
    <div className="messages">
      <h2>Messages</h2>
      <div className="messages-panes">
        <div className="messages-inbox">
          <div className="messages-filters">
            <AgentPicker agents={agents} value={picked} onPick={pick} />
            <div className="messages-search">
              <label htmlFor="messages-search">Search</label>
              <input
                id="messages-search"
                type="search"
                value={search}
                placeholder="Number, name or text"
                onChange={(e) => setSearch(e.target.value)}
              />
            </div>
          </div>
          {starting ? (
            <NewConversation agents={agents} picked={picked} onClose={() => setStarting(false)} />
          ) : (
            <div className="messages-actions">
              <button type="button" className="secondary" onClick={() => setStarting(true)}>
                New conversation
              </button>
              {teamId && agentId && inbox.contacts.length > 0 && (
                <DeleteAgentMessages teamId={teamId} agentId={agentId} label={labelOf({ teamId, agentId })} />
              )}
            </div>
          )}
          <GapNotices agents={inbox.agents} labelOf={labelOf} />
          {searching ? (
            <>
              {found.error && <p role="alert">{errorText(found.error)}</p>}
              {found.result &&
                (found.result.contacts.length === 0 && found.result.messages.length === 0 ? (
                  <EmptyState title="No conversation matches.">
                    <p className="muted">The search looks through every conversation of every agent.</p>
                  </EmptyState>
                ) : (
                  <SearchResults result={found.result} open={open} labelOf={labelOf} />
                ))}
            </>
          ) : (
            <>
              {inbox.error && <p role="alert">{errorText(inbox.error)}</p>}
              {inbox.loaded && inbox.contacts.length === 0 && !inbox.error && (
                <EmptyState title="No messages yet.">
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
            </>
          )}
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
