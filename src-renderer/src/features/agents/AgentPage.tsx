// One agent: the session fields exactly as the service reports them, the monitor's view, actions,
// a wa.me QR when linked, its availability, and the incident timeline.
import type { AgentDTO, SessionDTO } from '../../../../src-shared/contract';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { HealthBadge } from '../../components/HealthBadge';
import { Since, TimeAgo, useNow } from '../../components/TimeAgo';
import { usePolling } from '../../components/usePolling';
import { agentHref, consoleHref } from '../../router/routes';
import { resolveAgent } from '../../router/resolve';
import { agentKey } from '../../store/env';
import { isStale } from '../../store/link';
import { useApp } from '../../store/react';
import { SessionRead } from '../pairing/SessionRead';
import { WaMeQr } from '../pairing/WaMeQr';
import { Availability } from './Availability';
import { Timeline } from './Timeline';
import { WatchClosely } from './WatchClosely';
import { AgentMessages } from './AgentMessages';
import { AgentLabelsEditor } from './AgentLabels';

const yesNo = (b: boolean) => (b ? 'true' : 'false');

function SessionFields({ session }: { session: SessionDTO }) {
  return (
    <dl className="fields">
      <dt>connected</dt>
      <dd>{yesNo(session.connected)}</dd>
      <dt>linked</dt>
      <dd>{yesNo(session.linked)}</dd>
      <dt>state</dt>
      <dd>
        <code>{session.state}</code>
      </dd>
      <dt>needsScan</dt>
      <dd>{yesNo(session.needsScan)}</dd>
      <dt>phone</dt>
      <dd>{session.phone ?? 'null'}</dd>
      <dt>qr</dt>
      <dd>{session.qr ? 'present (see Pairing)' : 'null'}</dd>
    </dl>
  );
}

function AgentBody({ agent }: { agent: AgentDTO }) {
  const key = agentKey(agent.teamId, agent.agentId);
  const view = useApp((s) => s.pairing[key]);
  const poll = useApp((s) => s.pollPairing);
  const team = useApp((s) => s.teams.find((t) => t.teamId === agent.teamId));
  const now = useNow(5000);
  const stale = useApp(isStale);
  const h = agent.health;
  // Read again at once when the monitor sees the health change, so the two cards never disagree.
  usePolling(() => poll(agent.teamId, agent.agentId), 5000, true, `${h.health}/${h.state}`);
  const session = view?.session ?? null;
  const phone = session?.phone ?? h.phone;
  const linked = session ? session.linked && !session.needsScan : h.health === 'connected';
  // Pair leads while a scan is needed: as the monitor says, or as the session read says (not linked).
  const scan =
    (h.lastKnown ?? h.health) === 'needs-scan' ||
    h.needsScan ||
    (session !== null && (!session.linked || session.needsScan));
  // While the session card shows a failed read's error, the monitor's failed poll is not a second box.
  const pollError = h.error && !view?.error ? h.error : null;
  return (
    <>
      <p>
        <HealthBadge health={h.health} stale={stale} /> <span className="muted">{team?.label}</span>
      </p>
      {/* One primary action: Pair while a scan is needed, else Chat (Pair is never first for a linked agent). */}
      <nav aria-label="Agent actions" className="actions">
        <a className={scan ? 'button' : 'button secondary'} href={agentHref(agent.teamId, agent.agentId, 'pairing')}>
          Pair
        </a>
        <a className={scan ? 'button secondary' : 'button'} href={agentHref(agent.teamId, agent.agentId, 'chat')}>
          Chat
        </a>
        <a className="button secondary" href={consoleHref(agent.teamId, agent.agentId)}>
          Console
        </a>
        <a className="button secondary" href={agentHref(agent.teamId, agent.agentId, 'agent-settings')}>
          Settings
        </a>
      </nav>
      <div className="grid2">
        <section className="card" aria-labelledby="session-title">
          <h3 id="session-title">Session, as the service reports it</h3>
          <SessionRead view={view} now={now} asking="Asking the service…" />
          {session && <SessionFields session={session} />}
          {!view?.error && view?.readAt && (
            <p className="muted">
              Read <TimeAgo at={view.readAt} now={now} />
            </p>
          )}
        </section>
        <section className="card" aria-labelledby="monitor-title">
          <h3 id="monitor-title">Monitor</h3>
          <dl className="fields">
            <dt>health</dt>
            <dd>
              {h.health} <Since at={h.since} now={now} />
            </dd>
            <dt>state (raw)</dt>
            <dd>
              {h.state !== null ? (
                <code>{h.state}</code>
              ) : h.checkedAt ? (
                'none: the last poll failed'
              ) : (
                'not polled yet'
              )}
            </dd>
            <dt>last poll</dt>
            <dd>
              {h.checkedAt ? <TimeAgo at={h.checkedAt} now={now} /> : 'not yet'}
              {h.error && !pollError ? ' · failed (the error is in the session card)' : ''}
            </dd>
          </dl>
          {pollError && <ErrorNotice error={pollError} />}
          <WatchClosely agent={agent} />
        </section>
        <AgentMessages agent={agent} />
        <AgentLabelsEditor agent={agent} />
      </div>
      {linked && phone && (
        <section className="card" aria-labelledby="wame-title">
          <h3 id="wame-title">Message this agent from a phone</h3>
          <WaMeQr phone={phone} />
        </section>
      )}
      <Availability agent={agent} />
      <Timeline teamId={agent.teamId} agentId={agent.agentId} now={now} />
    </>
  );
}

export function AgentPage({ agentId, teamId }: { agentId: string; teamId: string | null }) {
  const agent = useApp((s) => resolveAgent(s.agents, agentId, teamId));
  return (
    <section aria-labelledby="agent-title">
      <p>
        <a href="#/">← All agents</a>
      </p>
      <h2 id="agent-title">{agent ? agent.label : agentId}</h2>
      {agent ? (
        <AgentBody agent={agent} />
      ) : (
        <EmptyState title="This agent is not in any of your teams.">
          <p>
            Check the link, or add the agent ID to a team in <a href="#/settings">Settings</a>.
          </p>
        </EmptyState>
      )}
    </section>
  );
}
