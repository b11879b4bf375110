// The agent's conversations, most recent first: one per user id (your own, the new ones you start,
// the customers you play). Search matches names, titles and previews here, and the text of every
// message and reply through chat.conversations. The list is read again whenever one of the agent's
// replies ends, on screen or not, so each conversation's time and preview stay current.
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { ChatConversationDTO } from '../../../../src-shared/contract';
import { TimeAgo } from '../../components/TimeAgo';
import { convKey } from '../../store/chat';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { conversationName, useFirstMessage } from './ConversationTitle';
import { useConversationNames } from './names';
import { plainPreview } from './preview';
import { newConversationId } from './user-id';

const NO_ITEMS: ChatConversationDTO[] = [];
const SEARCH_DELAY_MS = 200;

/** The conversation on screen while it has no transcript yet (new, or its first reply still coming). */
const unsaved = (userId: string, title: string): ChatConversationDTO => ({
  userId,
  turns: 0,
  lastAt: null,
  conversationId: null,
  title,
  preview: '',
  match: null,
});

interface Props {
  teamId: string;
  agentId: string;
  own: string;
  /** The user id of the conversation on screen. */
  shown: string;
}

function CustomerForm({ onUse }: { onUse(userId: string): void }) {
  const [custom, setCustom] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (custom.trim()) onUse(custom.trim());
  };
  return (
    <details className="chat-as">
      <summary>Chat as a customer</summary>
      <form className="chat-user-form" onSubmit={submit}>
        <label htmlFor="chat-custom-user">Customer user id</label>
        <input
          id="chat-custom-user"
          value={custom}
          onChange={(e) => setCustom(e.target.value)}
          placeholder="e.g. customer-42"
        />
        <button type="submit" className="secondary small" disabled={!custom.trim()}>
          Use this id
        </button>
      </form>
    </details>
  );
}

export function ConversationList({ teamId, agentId, own, shown }: Props) {
  const key = agentKey(teamId, agentId);
  const items = useApp((s) => s.chatLists[key]?.items ?? NO_ITEMS);
  const loadError = useApp((s) => s.chatLists[key]?.error ?? null);
  const load = useApp((s) => s.loadChatList);
  const search = useApp((s) => s.searchChats);
  const select = useApp((s) => s.selectChat);
  const names = useConversationNames();
  const shownFirst = useFirstMessage(convKey(teamId, agentId, shown)) ?? '';
  const shownBusy = useApp((s) => s.chatConvs[convKey(teamId, agentId, shown)]?.busy ?? false);
  const [query, setQuery] = useState('');
  // Matches in message and reply text, by user id, for `query`.
  const [found, setFound] = useState<{ query: string; matches: Map<string, string> } | null>(null);
  const q = query.trim().toLowerCase();

  useEffect(() => {
    void load(teamId, agentId);
  }, [load, teamId, agentId]);

  // A reply that ended changes the list (a new conversation, its preview, its time): also one of a
  // conversation left while its reply was still coming.
  const replying = useApp((s) => {
    let n = 0;
    for (const c of Object.values(s.chatConvs)) if (c.busy && c.teamId === teamId && c.agentId === agentId) n += 1;
    return n;
  });
  const wasReplying = useRef(replying);
  useEffect(() => {
    if (replying < wasReplying.current) void load(teamId, agentId);
    wasReplying.current = replying;
  }, [replying, load, teamId, agentId]);

  useEffect(() => {
    if (!q) return;
    let live = true;
    const t = setTimeout(() => {
      void search(teamId, agentId, q).then((r) => {
        if (live && r.ok) setFound({ query: q, matches: new Map(r.items.map((c) => [c.userId, c.match ?? ''])) });
      });
    }, SEARCH_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [q, search, teamId, agentId]);

  const rows = useMemo(() => {
    const all = items.some((c) => c.userId === shown) ? items : [unsaved(shown, shownFirst), ...items];
    const named = all.map((c) => ({ c, name: conversationName(names[convKey(teamId, agentId, c.userId)], c.title) }));
    if (!q) return named.map((r) => ({ ...r, snippet: plainPreview(r.c.preview) }));
    const matches = found?.query === q ? found.matches : null;
    return named
      .filter(
        ({ c, name }) =>
          [name, c.title, c.preview, c.userId].some((s) => s.toLowerCase().includes(q)) || matches?.has(c.userId),
      )
      .map((r) => ({ ...r, snippet: matches?.get(r.c.userId) || plainPreview(r.c.preview) }));
  }, [items, shown, shownFirst, names, teamId, agentId, q, found]);

  const choose = (userId: string) => select(teamId, agentId, userId === own ? null : userId);

  return (
    <nav className="chat-side" aria-labelledby="chat-convs-title">
      <div className="chat-side-head">
        <h3 id="chat-convs-title">Conversations</h3>
        <button type="button" className="small" onClick={() => choose(newConversationId(own))}>
          New conversation
        </button>
      </div>
      <label className="sr-only" htmlFor="chat-search">
        Search conversations
      </label>
      <input
        id="chat-search"
        type="search"
        className="chat-search"
        placeholder="Search conversations"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      {loadError && <p className="error">The conversation list could not be read.</p>}
      <ul className="chat-convs">
        {rows.map(({ c, name, snippet }) => (
          <li key={c.userId}>
            <button
              type="button"
              className="chat-conv"
              aria-current={c.userId === shown ? 'true' : undefined}
              onClick={() => choose(c.userId)}
              title={`user id ${c.userId}`}
            >
              <span className="chat-conv-name">{name}</span>
              <span className="chat-conv-sub">
                {c.turns > 0 ? snippet : c.userId === shown && shownBusy ? 'Writing…' : 'No messages yet'}
              </span>
              <span className="chat-conv-when">
                {c.userId !== own && !c.userId.startsWith(`${own}-`) && <span>as {c.userId} · </span>}
                {c.lastAt !== null ? (
                  <TimeAgo at={c.lastAt} />
                ) : c.userId === shown && shownBusy ? (
                  'now'
                ) : (
                  'not sent yet'
                )}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {q && rows.length === 0 && <p className="muted chat-none">No conversation matches “{query.trim()}”.</p>}
      <CustomerForm onUse={choose} />
    </nav>
  );
}
