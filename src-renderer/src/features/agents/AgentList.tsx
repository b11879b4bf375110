// Agents home: a summary of every agent's health, then each agent (worst health first) with its id,
// team, number, time in state and the action its state calls for (an unreachable agent: its last
// known state, shown beside the mark, and that state's action); filters (words, health, team); Add
// agent, which opens the agent's page once it is added (where Pair is). The list is windowed (a
// team's thousands of agents put only the rows near the viewport in the page) and each row follows
// its own agent in the store, so a poll renders one row again.
import { defaultRangeExtractor, useWindowVirtualizer, type Range } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { AgentDTO } from '../../../../src-shared/contract';
import { EmptyState } from '../../components/EmptyState';
import { errorLine } from '../../components/errors';
import { HealthBadge } from '../../components/HealthBadge';
import { HEALTH_GLYPHS, HEALTH_HINTS, HEALTH_SHORT } from '../../components/health';
import { Since, TimeAgo, useNow } from '../../components/TimeAgo';
import { agentHref, consoleHref, messagesHref } from '../../router/routes';
import { selectHealthCounts } from '../../store/agents';
import { agentKey } from '../../store/env';
import { isStale } from '../../store/link';
import { useApp } from '../../store/react';
import { AddAgent } from '../settings/AddAgentForm';
import { NO_FILTER, shownKeys, type AgentFilter } from './agent-filter';
import { AgentFilterBar } from './AgentFilterBar';
import { HealthSummary } from './HealthSummary';

/**
 * What the row offers: Pair when a scan is needed (never on a connected agent), else Chat and Send.
 * While the agent is unreachable, its last known state decides.
 */
function RowActions({ agent }: { agent: AgentDTO }) {
  const { teamId, agentId, label } = agent;
  if ((agent.health.lastKnown ?? agent.health.health) === 'needs-scan') {
    return (
      <a className="button small" href={agentHref(teamId, agentId, 'pairing')} aria-label={`Pair ${label}`}>
        Pair
      </a>
    );
  }
  return (
    <>
      <a className="button small secondary" href={agentHref(teamId, agentId, 'chat')} aria-label={`Chat with ${label}`}>
        Chat
      </a>
      <a className="button small secondary" href={consoleHref(teamId, agentId)} aria-label={`Send from ${label}`}>
        Send
      </a>
    </>
  );
}

/** The agent's unread messages, a link to them (nothing when there are none). */
function UnreadLink({ teamId, agentId, label }: { teamId: string; agentId: string; label: string }) {
  const unread = useApp((s) => s.unreadByAgent[agentKey(teamId, agentId)] ?? 0);
  if (unread === 0) return null;
  const words = `${unread} unread message${unread === 1 ? '' : 's'}`;
  return (
    <a className="agent-unread" href={messagesHref(teamId, agentId)} aria-label={`${label}: ${words}`} title={words}>
      {unread} unread
    </a>
  );
}

/**
 * One agent's row, found by its key: a poll of this agent renders this row again, no other.
 * `lastHeardAt` is set while the app is out of touch: the row shows unknown and when it last heard.
 */
const AgentRow = memo(function AgentRow({
  agentKey: key,
  index,
  count,
  measure,
  top,
  teamLabel,
  now,
  lastHeardAt,
}: {
  agentKey: string;
  index: number;
  count: number;
  measure: (el: HTMLLIElement | null) => void;
  top: number;
  teamLabel: ReadonlyMap<string, string>;
  now: number;
  lastHeardAt?: number | null;
}) {
  const agent = useApp((s) => s.agents[key]);
  if (!agent) return null;
  const h = agent.health;
  const stale = lastHeardAt !== undefined;
  const hint = stale ? '' : h.error ? `last poll failed: ${errorLine(h.error)}` : HEALTH_HINTS[h.health];
  return (
    <li
      ref={measure}
      data-index={index}
      aria-posinset={index + 1}
      aria-setsize={count}
      style={{ transform: `translateY(${top}px)` }}
      className={`agent agent-${stale ? 'unknown' : h.health}${index === 0 ? ' agent-first' : ''}`}
    >
      <span className="agent-health">
        <HealthBadge health={h.health} short stale={stale} />
      </span>
      <div className="agent-who">
        <p className="agent-name">
          <a className="agent-label" href={agentHref(agent.teamId, agent.agentId)}>
            {agent.label}
          </a>{' '}
          {agent.label !== agent.agentId && <code className="agent-id">{agent.agentId}</code>}{' '}
          <UnreadLink teamId={agent.teamId} agentId={agent.agentId} label={agent.label} />
        </p>
        <p className="agent-facts muted">
          <span>{teamLabel.get(agent.teamId) ?? agent.teamId}</span>
          <span className="agent-phone">{h.phone ? `+${h.phone}` : 'no number'}</span>
          {!stale && <Since at={h.since} now={now} />}
          <span>
            {stale ? (
              lastHeardAt === null ? (
                'not heard from yet'
              ) : (
                <>
                  last heard <TimeAgo at={lastHeardAt} now={now} />
                </>
              )
            ) : h.checkedAt === null ? (
              'not polled yet'
            ) : (
              <>
                polled <TimeAgo at={h.checkedAt} now={now} />
              </>
            )}
          </span>
          {hint && <span className={h.error ? 'error' : undefined}>{hint}</span>}
          {!stale && h.lastKnown && (
            <span className="agent-last-known">
              last known: <span aria-hidden="true">{HEALTH_GLYPHS[h.lastKnown]}</span> {HEALTH_SHORT[h.lastKnown]}
            </span>
          )}
        </p>
      </div>
      <div className="agent-actions">
        <RowActions agent={agent} />
      </div>
    </li>
  );
});

/** A row's height before it is measured (two lines of text and the padding). */
const ROW_ESTIMATE_PX = 64;
/** Rows kept beyond each edge of the window: Tab and Shift+Tab always find the next row already there. */
const OVERSCAN = 8;

/** Where the element starts in the page (its offset from the top of the document). */
function pageTop(el: HTMLElement): number {
  return el.getBoundingClientRect().top + window.scrollY;
}

/**
 * The agents, windowed: only the rows in and near the viewport are in the page (the page scrolls as
 * it always did; the list keeps the height of all its rows). The row that holds the focus stays in
 * the page while it is scrolled away, so focus is never lost to the body.
 */
function AgentRows({ keys, now, lastHeardAt }: { keys: readonly string[]; now: number; lastHeardAt?: number | null }) {
  const teams = useApp((s) => s.teams);
  const teamLabel = useMemo(() => new Map(teams.map((t) => [t.teamId, t.label])), [teams]);
  const list = useRef<HTMLUListElement>(null);
  const [margin, setMargin] = useState(0);
  // What sits above the list (notices, the Add agent panel, a wrapped summary) moves it down the page.
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    const follow = (): void => setMargin(pageTop(el));
    follow();
    if (typeof ResizeObserver === 'undefined') return;
    const watch = new ResizeObserver(follow);
    watch.observe(document.body);
    return () => watch.disconnect();
  }, []);
  const focused = useRef<number | null>(null);
  const range = useCallback((r: Range) => {
    const indexes = defaultRangeExtractor(r);
    const f = focused.current;
    return f === null || f >= r.count || indexes.includes(f) ? indexes : [...indexes, f].sort((a, b) => a - b);
  }, []);
  const v = useWindowVirtualizer({
    count: keys.length,
    estimateSize: () => ROW_ESTIMATE_PX,
    overscan: OVERSCAN,
    scrollMargin: margin,
    getItemKey: (i) => keys[i] ?? i,
    rangeExtractor: range,
  });
  return (
    <ul
      ref={list}
      className="agents"
      aria-label={`${keys.length} agents, worst health first`}
      style={{ height: v.getTotalSize() }}
      onFocus={(e) => {
        const at = (e.target as HTMLElement).closest('li')?.dataset.index;
        focused.current = at === undefined ? null : Number(at);
      }}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) focused.current = null;
      }}
    >
      {v.getVirtualItems().map((item) => (
        <AgentRow
          key={item.key}
          agentKey={keys[item.index]!}
          index={item.index}
          count={keys.length}
          measure={v.measureElement}
          top={item.start - v.options.scrollMargin}
          teamLabel={teamLabel}
          now={now}
          lastHeardAt={lastHeardAt}
        />
      ))}
    </ul>
  );
}

/** Add agent, from the home screen: the team (when there are several), then the add form. */
function AddAgentPanel({ onClose }: { onClose: () => void }) {
  const teams = useApp((s) => s.teams);
  const [teamId, setTeamId] = useState(teams[0]?.teamId ?? '');
  const pickId = useId();
  const panel = useRef<HTMLElement>(null);
  // Focus goes to the first field, so typing the agent ID can start at once.
  useEffect(() => panel.current?.querySelector<HTMLElement>('select, input')?.focus(), []);
  const team = teams.find((t) => t.teamId === teamId) ?? teams[0];
  return (
    <section className="card add-agent" aria-labelledby="add-agent-title" ref={panel}>
      <div className="page-head">
        <h3 id="add-agent-title">Add an agent</h3>
        <button type="button" className="secondary small" onClick={onClose}>
          Close
        </button>
      </div>
      {!team ? (
        <p>
          Add a team first (its API key), in <a href="#/settings">Settings</a>.
        </p>
      ) : (
        <>
          {teams.length > 1 && (
            <div className="form">
              <label htmlFor={pickId}>Team</label>
              <select id={pickId} value={team.teamId} onChange={(e) => setTeamId(e.target.value)}>
                {teams.map((t) => (
                  <option key={t.teamId} value={t.teamId}>
                    {t.label}
                  </option>
                ))}
              </select>
            </div>
          )}
          <AddAgent team={team} onAdded={(agentId) => (window.location.hash = agentHref(team.teamId, agentId))} />
        </>
      )}
    </section>
  );
}

export function AgentList() {
  const teams = useApp((s) => s.teams);
  const total = useApp((s) => s.agentOrder.length);
  const [filter, setFilter] = useState<AgentFilter>(NO_FILTER);
  const shown = useApp(useMemo(() => shownKeys(filter), [filter]));
  const counts = useApp(selectHealthCounts);
  const now = useNow(5000);
  const lastHeardAt = useApp((s) => (isStale(s) ? s.link.lastHeardAt : undefined));
  const [adding, setAdding] = useState(false);
  return (
    <section aria-labelledby="agents-title">
      <div className="page-head">
        <h2 id="agents-title">Agents</h2>
        <button type="button" className="secondary" aria-expanded={adding} onClick={() => setAdding((a) => !a)}>
          Add agent
        </button>
      </div>
      {adding && <AddAgentPanel onClose={() => setAdding(false)} />}
      {teams
        .filter((t) => t.keyRejected)
        .map((t) => (
          <p key={t.teamId} role="alert" className="notice notice-error">
            <strong>⚠ The service rejected the API key of team {t.label} (key rejected).</strong> Its agents are not
            being checked. Add the team again with a current key in <a href="#/settings">Settings</a>.
          </p>
        ))}
      {total > 0 && <HealthSummary counts={counts} total={total} stale={lastHeardAt !== undefined} />}
      <AgentFilterBar filter={filter} onChange={setFilter} shown={shown.length} total={total} />
      {total === 0 ? (
        <EmptyState title="No agents yet.">
          <p>
            Add agent IDs to a team in <a href="#/settings">Settings</a>.
          </p>
        </EmptyState>
      ) : shown.length === 0 ? (
        <EmptyState
          title={filter.text.trim() ? `No agent matches “${filter.text}”.` : 'No agent matches these filters.'}
        />
      ) : (
        <AgentRows keys={shown} now={now} lastHeardAt={lastHeardAt} />
      )}
    </section>
  );
}
