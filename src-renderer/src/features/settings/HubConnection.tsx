// Settings → Team hub: connect this window (and the app's other windows) to a team's hub with its URL and a
// member token, or disconnect back to this computer's companion. The token goes to the main side once, which
// keeps it in the system keychain; the form forgets it at once. A hub's refusal (a wrong or revoked token, an
// address that does not answer) is said beside the form.
import { useId, useState, type FormEvent } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { AsyncButton } from '../../components/AsyncButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';
import { HubActivity } from './HubActivity';

export function HubConnection() {
  const hub = useApp((s) => s.hub);
  const connect = useApp((s) => s.connectHub);
  const disconnect = useApp((s) => s.disconnectHub);
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const ids = { url: useId(), token: useId(), hint: useId(), error: useId() };
  const connected = hub !== null && hub.member !== null;

  const onSubmit = async (ev: FormEvent) => {
    ev.preventDefault();
    setBusy(true);
    const e = await connect(url.trim() || (hub?.url ?? ''), token.trim());
    setBusy(false);
    setError(e);
    if (!e) setToken('');
  };
  const wrong = (field: 'url' | 'token') =>
    error && (error.field === field || (field === 'token' && error.code === 'HUB_BAD_TOKEN'))
      ? { 'aria-invalid': true, 'aria-describedby': ids.error }
      : {};

  return (
    <section className="card" aria-labelledby="hub-title">
      <h3 id="hub-title">Team hub</h3>
      {connected ? (
        <>
          <p data-testid="hub-connected">
            Connected to hub <strong>{hub.url}</strong> as <strong>{hub.member}</strong> ({hub.role}). The screens show
            the hub’s agents, incidents, inbox and deliveries.
          </p>
          {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
          <AsyncButton className="secondary" busyText="Disconnecting…" onRun={async () => setError(await disconnect())}>
            Disconnect
          </AsyncButton>
          <HubActivity key={`${hub.url}\n${hub.member}`} />
        </>
      ) : (
        <form className="form" onSubmit={(e) => void onSubmit(e)} aria-label="Connect to your team's hub" noValidate>
          <p>Connect to your team’s hub to work with its agents, incidents, inbox and deliveries.</p>
          {hub?.problem && (
            <p className="notice" role="status">
              The saved hub {hub.url} is not in use: {hub.problem}
            </p>
          )}
          <label htmlFor={ids.url}>Hub address</label>
          <input
            id={ids.url}
            type="url"
            inputMode="url"
            placeholder={hub?.url ?? 'https://hub.example.com'}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            aria-required="true"
            {...wrong('url')}
          />
          <label htmlFor={ids.token}>Member token</label>
          <input
            id={ids.token}
            type="password"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            autoComplete="off"
            aria-required="true"
            aria-describedby={ids.hint}
            {...wrong('token')}
          />
          <p className="hint" id={ids.hint}>
            From your hub admin (<code>channel-companion hub member add</code>). It is kept in your system keychain.
          </p>
          {error && <ErrorNotice id={ids.error} error={error} />}
          <div className="actions">
            <button type="submit" disabled={busy}>
              {busy ? 'Connecting…' : 'Connect'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** The header's line while connected: which hub, as whom. */
export function HubIndicator() {
  const hub = useApp((s) => s.hub);
  if (!hub || hub.member === null) return null;
  return (
    <p className="hub-indicator" role="status" data-testid="hub-indicator">
      Connected to hub {hub.url} as {hub.member} ({hub.role})
    </p>
  );
}
