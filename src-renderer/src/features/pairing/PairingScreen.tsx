// Pairing: start a session, show the QR large (polled every 1.5 s while here), count down to the
// next code and to the pairing's expiry (from the main side's times, so they are right whenever the
// screen opens), Cancel, detect the scan and celebrate the link. Decisions come from
// needsScan/qr/connected.
import { useEffect, useRef } from 'react';
import type { AgentDTO } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { AsyncButton } from '../../components/AsyncButton';
import { EmptyState } from '../../components/EmptyState';
import { QrImage } from '../../components/Qr';
import { useNow } from '../../components/TimeAgo';
import { usePolling } from '../../components/usePolling';
import { useKeepFocus } from '../../router/focus';
import { agentHref } from '../../router/routes';
import { resolveAgent } from '../../router/resolve';
import { agentKey } from '../../store/env';
import { emptyPairing, pairingCountdown, pairingPhase, type PairingCountdown } from '../../store/pairing';
import { formatCountdown } from '../../../../src-shared/duration';
import { useApp } from '../../store/react';
import { SessionRead } from './SessionRead';
import { WaMeQr } from './WaMeQr';
import './pairing.css';

const POLL_MS = 1500;
/** Without a QR this long after pairing.start, say so and offer to try again. */
const PREPARE_TIMEOUT_MS = 30_000;

function Steps() {
  return (
    <ol className="steps">
      <li>Open WhatsApp on the phone that carries the agent's number.</li>
      <li>
        Go to <strong>Settings → Linked devices → Link a device</strong>.
      </li>
      <li>Point the phone at this QR code.</li>
    </ol>
  );
}

function Countdown({ c }: { c: PairingCountdown }) {
  const at = new Date(c.expiresAt).toLocaleTimeString();
  return (
    <div className="pairing-countdown">
      <p>
        {c.nextQrMs === null
          ? 'This is the last code of this pairing.'
          : `Next code in ${formatCountdown(c.nextQrMs)}; it refreshes here by itself.`}
      </p>
      <p>
        {c.expiresInMs === 0
          ? 'The pairing is expiring now.'
          : `The pairing expires in ${c.exact ? '' : 'at most '}${formatCountdown(c.expiresInMs)} (at ${at}).`}{' '}
        {!c.exact && 'It was started outside this app, so it may end sooner. '}
        After that, start again.
      </p>
      <meter
        min={0}
        max={Math.round(c.totalMs / 1000)}
        value={Math.round(c.expiresInMs / 1000)}
        aria-label="Time left to scan, in seconds"
      />
    </div>
  );
}

function CancelPairing({ agent, expiresAt }: { agent: AgentDTO; expiresAt: number | null }) {
  const cancel = useApp((s) => s.cancelPairing);
  return (
    <div className="pairing-cancel">
      <button type="button" className="secondary" onClick={() => cancel(agent.teamId, agent.agentId, agent.label)}>
        Cancel
      </button>
      <p className="muted">
        Stops waiting here and goes back to the agent. The service has no way to cancel a pairing: the code stays valid
        until it expires
        {expiresAt === null ? '' : ` (${new Date(expiresAt).toLocaleTimeString()})`}.
      </p>
    </div>
  );
}

function PairingBody({ agent }: { agent: AgentDTO }) {
  const key = agentKey(agent.teamId, agent.agentId);
  const view = useApp((s) => s.pairing[key]) ?? emptyPairing();
  const start = useApp((s) => s.startPairing);
  const poll = useApp((s) => s.pollPairing);
  const now = useNow(1000);
  usePolling(() => poll(agent.teamId, agent.agentId), POLL_MS);
  const phase = pairingPhase(view);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (phase === 'linked' && view.linkedAt) heading.current?.focus();
  }, [phase, view.linkedAt]);
  // A control replaced by what it started (Start pairing by the wait, Cancel by the QR): focus goes
  // to the block that took its place.
  const body = useRef<HTMLDivElement>(null);
  useKeepFocus(body, () => body.current?.querySelector<HTMLElement>('.pairing, .card') ?? body.current);
  const gate = useGate('pairing.start');
  const startButton = (text: string) => (
    <>
      <AsyncButton
        onRun={() => start(agent.teamId, agent.agentId)}
        busyText="Starting pairing…"
        request="pairing.start"
      >
        {text}
      </AsyncButton>
      {gate.note}
    </>
  );
  const session = view.session;
  const countdown = pairingCountdown(session?.qr ? session.pairing : undefined, now);
  return (
    <div ref={body}>
      <SessionRead view={view} now={now} asking="Asking the service for the session…" />
      {phase === 'needs-scan' && (
        <div className="card">
          <p>
            <strong>This number is not linked.</strong> A person has to scan a QR code with the phone; retrying on its
            own never helps.
          </p>
          {startButton('Start pairing')}
        </div>
      )}
      {phase === 'preparing' &&
        (view.startedAt !== null && now - view.startedAt > PREPARE_TIMEOUT_MS ? (
          <div className="card">
            <p>The service has not sent a QR code yet.</p>
            {startButton('Try again')}
          </div>
        ) : (
          <div className="card">
            <p aria-busy="true">
              <progress aria-label="Waiting for the QR code" /> Waiting for the QR code from the service…
            </p>
            <CancelPairing agent={agent} expiresAt={null} />
          </div>
        ))}
      {phase === 'expired' && (
        <div className="card">
          <p>
            <strong>The pairing code expired</strong> before it was scanned. Start again when the phone is at hand.
          </p>
          {startButton('Start pairing again')}
        </div>
      )}
      {phase === 'qr' && session?.qr && (
        <div className="pairing">
          <QrImage src={session.qr} alt={`Pairing QR code for ${agent.label}`} size={320} />
          <div>
            <Steps />
            {countdown && <Countdown c={countdown} />}
            <CancelPairing agent={agent} expiresAt={countdown?.expiresAt ?? null} />
          </div>
        </div>
      )}
      {phase === 'linked' && session && (
        <div className={`card ${view.linkedAt ? 'celebrate' : ''}`}>
          <h3 ref={heading} tabIndex={-1}>
            <span aria-hidden="true">✓ </span>
            {view.linkedAt ? 'Linked! ' : 'Linked. '}
            {session.phone ? `${agent.label} now answers on +${session.phone}.` : `${agent.label} is connected.`}
          </h3>
          {session.phone && <WaMeQr phone={session.phone} />}
          <p>
            <a href={agentHref(agent.teamId, agent.agentId)}>Back to the agent</a>
          </p>
        </div>
      )}
      {phase === 'recovering' && session && (
        <div className="card">
          <p>
            <strong>The number is still linked; its connection is recovering.</strong> Nothing to do, it recovers on its
            own. No QR scan is needed.
          </p>
          <p className="muted">
            The service reports state <code>{session.state}</code>.
          </p>
        </div>
      )}
      <p className="sr-only" role="status" aria-live="polite">
        {phase === 'qr'
          ? 'QR code shown. Scan it with the phone.'
          : phase === 'linked' && view.linkedAt
            ? 'Linked.'
            : ''}
      </p>
    </div>
  );
}

export function PairingScreen({ agentId, teamId }: { agentId: string; teamId: string | null }) {
  const agent = useApp((s) => resolveAgent(s.agents, agentId, teamId));
  return (
    <section aria-labelledby="pairing-title">
      <p>
        <a href={agentHref(teamId, agentId)}>← Back to the agent</a>
      </p>
      <h2 id="pairing-title">Pair {agent?.label ?? agentId}</h2>
      {agent ? <PairingBody agent={agent} /> : <EmptyState title="This agent is not in any of your teams." />}
    </section>
  );
}
