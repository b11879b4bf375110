// One agent's webhook registrations by this install, newest first (URL, when, from which command or
// screen), and "Restore previous URL": after a confirm step it registers that URL again and says
// plainly that the app behind it needs the new signing secret, with a guarded reveal of that secret.
// The secret is fetched only when the person asks and confirms, kept in this component only while
// shown, and dropped on Hide or when the list closes.
import { useEffect, useState } from 'react';
import type {
  ErrorDTO,
  RegistrationStatusDTO,
  WebhookHistoryDTO,
  WebhookRestoreDTO,
} from '../../../../src-shared/contract';
import { registrationSourceWords } from '../../../../src-shared/words';
import { useConnectedHub, useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';
import { ConfirmTakeover } from './ConfirmTakeover';
import { CopyButton } from './CopyButton';

function SecretReveal({ teamId, agentId, who }: { teamId: string; agentId: string; who: string }) {
  const reveal = useApp((s) => s.revealSigningSecret);
  const [asking, setAsking] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const gate = useGate('webhook.revealSecret');
  if (secret !== null) {
    return (
      <p className="secret-shown">
        Signing secret of {who}: <code className="url">{secret}</code>{' '}
        <CopyButton text={secret} what={`the signing secret of ${who}`} />{' '}
        <button type="button" className="secondary small" onClick={() => setSecret(null)}>
          Hide
        </button>
      </p>
    );
  }
  if (asking) {
    return (
      <div role="group" aria-label="Confirm showing the signing secret">
        <p>
          Show the signing secret of {who} on screen? Anyone who can see it can sign deliveries that this receiver and
          the app behind the URL accept.
        </p>
        <div className="actions">
          <button
            type="button"
            className="small"
            onClick={async () => {
              const r = await reveal(teamId, agentId);
              setAsking(false);
              if (r.ok) setSecret(r.value.secret);
              setError(r.ok ? null : r.error);
            }}
          >
            Show the secret
          </button>
          <button type="button" className="secondary small" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </div>
      </div>
    );
  }
  return (
    <>
      <button
        type="button"
        className="secondary small"
        onClick={() => setAsking(true)}
        disabled={!gate.allowed}
        {...gate.props}
      >
        Reveal the new signing secret…
      </button>
      {gate.hiddenNote}
      {error && <ErrorNotice error={error} />}
    </>
  );
}

export function WebhookHistory({
  teamId,
  agentId,
  who,
  registration,
}: {
  teamId: string;
  agentId: string;
  who: string;
  registration: RegistrationStatusDTO;
}) {
  const load = useApp((s) => s.webhookHistory);
  const restore = useApp((s) => s.restoreWebhook);
  const [history, setHistory] = useState<WebhookHistoryDTO | null>(null);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [restored, setRestored] = useState<WebhookRestoreDTO | null>(null);
  const restoreGate = useGate('webhook.restore');
  const byWhom = useConnectedHub() !== null ? 'by the team hub' : 'by this install';
  const reload = async () => {
    const r = await load(teamId, agentId);
    if (r.ok) setHistory(r.value);
    setError(r.ok ? null : r.error);
  };
  useEffect(() => {
    void reload();
    // Read again when a registration changes what is known.
  }, [teamId, agentId, registration.last?.at]);
  if (error) return <ErrorNotice error={error} />;
  if (!history) return <p aria-busy="true">Reading the registrations…</p>;
  const prev = history.previous;
  return (
    <div className="webhook-history">
      {history.problem && <p className="error">{history.problem}</p>}
      {history.entries.length === 0 ? (
        <p className="muted">
          No registration of {who} {byWhom}: where the service sends its deliveries is unknown (the service cannot tell
          us; another app may be receiving).
        </p>
      ) : (
        <ol aria-label={`Registrations of ${who} ${byWhom}`}>
          {history.entries.map((e) => (
            <li key={`${e.at}-${e.url}`}>
              <time dateTime={new Date(e.at).toISOString()}>{new Date(e.at).toLocaleString()}</time>{' '}
              <code className="url">{e.url}</code> <span className="muted">({registrationSourceWords(e)})</span>
            </li>
          ))}
        </ol>
      )}
      {prev && !restored && !confirming && (
        <>
          <button
            type="button"
            className="secondary small"
            onClick={() => setConfirming(true)}
            disabled={!restoreGate.allowed}
            {...restoreGate.props}
          >
            Restore previous URL
          </button>
          {restoreGate.hiddenNote}
        </>
      )}
      {prev && confirming && (
        <ConfirmTakeover
          who={who}
          url={prev.url}
          takeover={registration.takeover}
          busy={busy}
          onCancel={() => setConfirming(false)}
          onConfirm={async () => {
            setBusy(true);
            const r = await restore(teamId, agentId);
            setBusy(false);
            setConfirming(false);
            if (r.ok) setRestored(r.value);
            setError(r.ok ? null : r.error);
            if (r.ok) void reload();
          }}
        />
      )}
      {restored && (
        <div>
          <p role="status">{restored.words}</p>
          <SecretReveal teamId={teamId} agentId={agentId} who={who} />
        </div>
      )}
    </div>
  );
}
