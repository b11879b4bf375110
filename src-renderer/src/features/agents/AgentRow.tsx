// One row of the agents list: the agent's health, name and id, unread messages, team, number, time
// in state, last poll, and the action its state calls for. The row follows its own agent in the
// store (by key), so a poll of that agent renders this row again and no other.
import { memo } from 'react';
import type { AgentDTO } from '../../../../src-shared/contract';
import { errorLine } from '../../components/errors';
import { HealthBadge } from '../../components/HealthBadge';
import { HEALTH_GLYPHS, HEALTH_HINTS, HEALTH_SHORT } from '../../components/health';
import { Since, TimeAgo } from '../../components/TimeAgo';
import { agentHref, consoleHref, messagesHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { LabelChips } from './AgentLabels';

/** What a list of rows is handed: the agents' keys in order, and what every row shows alike. */
export interface RowsProps {
  keys: readonly string[];
  teamLabel: ReadonlyMap<string, string>;
  now: number;
  lastHeardAt?: number | null;
}

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
export const AgentRow = memo(function AgentRow({
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
  /** Windowed: measures the row, and where it is placed in the list. */
  measure?: (el: HTMLLIElement | null) => void;
  top?: number;
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
      style={top === undefined ? undefined : { transform: `translateY(${top}px)` }}
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
          <LabelChips labels={agent.labels} />{' '}
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
