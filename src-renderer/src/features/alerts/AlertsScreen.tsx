// Alerts: open incidents (urgent first; acknowledge one or all), snooze, the history of resolved
// ones, quiet hours, desktop notifications, and the alert rules kept in the app settings. Open
// incidents of one incident group ("20 agents need a QR scan") are listed under its header, each
// acknowledged on its own or all of the group at once.
import { useState } from 'react';
import type { ErrorDTO, IncidentDTO } from '../../../../src-shared/contract';
import { incidentGroupWords, SEVERITY_WORDS } from '../../../../src-shared/words';
import { useGate } from '../../components/allowed';
import { AsyncButton } from '../../components/AsyncButton';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TimeAgo, useNow } from '../../components/TimeAgo';
import { agentHref } from '../../router/routes';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { AlertRules } from './AlertRules';
import { ObservabilitySettings } from './ObservabilitySettings';
import { DesktopNotifications } from './DesktopNotifications';
import { IncidentHistory } from './IncidentHistory';
import { QuietHoursForm } from './QuietHoursForm';
import { formatUntil, isSnoozed } from './quietHours';

function IncidentRow({ i, now, onError }: { i: IncidentDTO; now: number; onError: (e: ErrorDTO | null) => void }) {
  const ack = useApp((s) => s.acknowledge);
  const label = useApp((s) => s.agents[agentKey(i.teamId, i.agentId)]?.label ?? i.agentId);
  return (
    <li className={`incident sev-${i.severity}`}>
      <p>
        <strong>
          {SEVERITY_WORDS[i.severity]}: {label} — {i.title}
        </strong>
      </p>
      <p>{i.message}</p>
      <p className="muted">
        Opened <TimeAgo at={i.openedAt} now={now} /> ·{' '}
        {i.acknowledgedAt === null
          ? 'not acknowledged'
          : i.acknowledgedBy
            ? `Acknowledged by ${i.acknowledgedBy}`
            : 'acknowledged'}
      </p>
      <div className="actions">
        <a href={agentHref(i.teamId, i.agentId)}>Open {label}</a>
        {i.kind === 'needs-scan' && <a href={agentHref(i.teamId, i.agentId, 'pairing')}>Pair {label}</a>}
        {i.acknowledgedAt === null && (
          <AsyncButton
            className="secondary small"
            onRun={async () => onError(await ack(i.id))}
            busyText="Acknowledging…"
            ariaLabel={`Acknowledge ${i.title} for ${label}`}
            request="alerts.acknowledge"
          >
            Acknowledge
          </AsyncButton>
        )}
      </div>
    </li>
  );
}

/** The open incidents in order, those of one group (two or more open) together where its first is. */
function byGroup(incidents: IncidentDTO[]): Array<IncidentDTO | IncidentDTO[]> {
  const members = new Map<string, IncidentDTO[]>();
  for (const i of incidents) if (i.group !== undefined) members.set(i.group, [...(members.get(i.group) ?? []), i]);
  const out: Array<IncidentDTO | IncidentDTO[]> = [];
  for (const i of incidents) {
    const group = i.group === undefined ? undefined : members.get(i.group);
    if (!group || group.length < 2) out.push(i);
    else if (group[0] === i) out.push(group);
  }
  return out;
}

function IncidentGroup({
  list,
  now,
  onError,
}: {
  list: IncidentDTO[];
  now: number;
  onError: (e: ErrorDTO | null) => void;
}) {
  const ack = useApp((s) => s.acknowledge);
  const first = list[0]!;
  const words = incidentGroupWords(first.kind, list.length);
  const unacked = list.filter((i) => i.acknowledgedAt === null);
  const headingId = `group-${first.group}`;
  return (
    <li className={`incident-group sev-${list.some((i) => i.severity === 'urgent') ? 'urgent' : first.severity}`}>
      <h4 id={headingId}>{words}</h4>
      <p className="muted">
        Opened <TimeAgo at={Math.min(...list.map((i) => i.openedAt))} now={now} /> ·{' '}
        {unacked.length === 0 ? 'all acknowledged' : `${unacked.length} not acknowledged`}
      </p>
      {unacked.length > 1 && (
        <AsyncButton
          className="secondary small"
          onRun={async () =>
            onError((await Promise.all(unacked.map((i) => ack(i.id)))).find((e) => e !== null) ?? null)
          }
          busyText="Acknowledging…"
          ariaLabel={`Acknowledge all ${unacked.length}: ${words}`}
          request="alerts.acknowledge"
        >
          Acknowledge all {unacked.length}
        </AsyncButton>
      )}
      <ul className="incidents" aria-labelledby={headingId}>
        {list.map((i) => (
          <IncidentRow key={i.id} i={i} now={now} onError={onError} />
        ))}
      </ul>
    </li>
  );
}

function Snooze({ onError }: { onError: (e: ErrorDTO | null) => void }) {
  const status = useApp((s) => s.alertStatus);
  const snooze = useApp((s) => s.snooze);
  const unsnooze = useApp((s) => s.unsnooze);
  const now = useNow(30_000);
  const snoozed = isSnoozed(status, now);
  const gate = useGate(snoozed ? 'alerts.unsnooze' : 'alerts.snooze');
  return (
    <section className="card" aria-labelledby="snooze-title">
      <h3 id="snooze-title">Snooze</h3>
      {gate.note}
      {snoozed && status?.snoozedUntil ? (
        <>
          <p>
            Alerts are snoozed until <strong>{formatUntil(status.snoozedUntil, now)}</strong>. Incidents are still
            recorded.
          </p>
          <AsyncButton onRun={async () => onError(await unsnooze())} busyText="Resuming…" request="alerts.unsnooze">
            Resume alerts now
          </AsyncButton>
        </>
      ) : (
        <>
          <p>Alerts are on.</p>
          <div className="actions" role="group" aria-label="Snooze alerts for">
            <AsyncButton
              className="secondary"
              onRun={async () => onError(await snooze({ minutes: 15 }))}
              request="alerts.snooze"
            >
              Snooze 15 min
            </AsyncButton>
            <AsyncButton
              className="secondary"
              onRun={async () => onError(await snooze({ minutes: 60 }))}
              request="alerts.snooze"
            >
              Snooze 1 h
            </AsyncButton>
            <AsyncButton
              className="secondary"
              onRun={async () => onError(await snooze({ until: 'tomorrow' }))}
              request="alerts.snooze"
            >
              Snooze until tomorrow
            </AsyncButton>
          </div>
        </>
      )}
    </section>
  );
}

export function AlertsScreen() {
  const incidents = useApp((s) => s.incidents);
  const ackAll = useApp((s) => s.acknowledgeAll);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const now = useNow(5000);
  const unacked = incidents.filter((i) => i.acknowledgedAt === null).length;
  const ackGate = useGate('alerts.acknowledge');
  return (
    <section aria-labelledby="alerts-title">
      <h2 id="alerts-title">Alerts</h2>
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
      <section className="card" aria-labelledby="open-title">
        <h3 id="open-title">
          Open incidents <span className="muted">({incidents.length})</span>
        </h3>
        {incidents.length === 0 ? (
          <EmptyState title="No open incidents. Every agent is fine or already handled." />
        ) : (
          <>
            {unacked > 0 && ackGate.note}
            {unacked > 1 && (
              <AsyncButton
                className="secondary"
                onRun={async () => setError(await ackAll())}
                busyText="Acknowledging…"
                request="alerts.acknowledgeAll"
              >
                Acknowledge all ({unacked})
              </AsyncButton>
            )}
            <ul className="incidents">
              {byGroup(incidents).map((i) =>
                Array.isArray(i) ? (
                  <IncidentGroup key={`group-${i[0]!.group}`} list={i} now={now} onError={setError} />
                ) : (
                  <IncidentRow key={i.id} i={i} now={now} onError={setError} />
                ),
              )}
            </ul>
          </>
        )}
      </section>
      <Snooze onError={setError} />
      <IncidentHistory />
      <QuietHoursForm />
      <DesktopNotifications />
      <AlertRules />
      <ObservabilitySettings />
    </section>
  );
}
