// App settings: general (start at login, poll interval), tunnel, message notifications, how long messages are kept,
// theme, teams and keys, diagnostics.
import { useState } from 'react';
import { DEFAULT_TUNNEL_PORT } from '../../../../src-shared/limits';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { AsyncButton } from '../../components/AsyncButton';
import { useConnectedHub } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Switch } from '../../components/Switch';
import { useApp } from '../../store/react';
import { HubConnection } from './HubConnection';
import { MessageNotifications } from './MessageNotifications';
import { MessageRetention } from './MessageRetention';
import { NumberSetting } from './NumberSetting';
import { TeamsManager } from './TeamsManager';
import { ThemePicker } from './ThemePicker';
import { downloadText } from '../../components/download';

function General() {
  const settings = useApp((s) => s.settings);
  const settingsError = useApp((s) => s.settingsError);
  const load = useApp((s) => s.loadSettings);
  const update = useApp((s) => s.updateSettings);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const onHub = useConnectedHub() !== null;
  if (!settings)
    return settingsError ? (
      <div className="card">
        <ErrorNotice error={settingsError} />
        <AsyncButton onRun={load}>Try again</AsyncButton>
      </div>
    ) : (
      <p aria-busy="true">Loading settings…</p>
    );
  return (
    <>
      <section className="card" aria-labelledby="general-title">
        <h3 id="general-title">General</h3>
        {onHub && (
          <p className="hint" data-testid="hub-settings-note">
            These are the team hub’s settings, shared by every member; a hub admin changes them.
          </p>
        )}
        <Switch
          label="Start at login"
          checked={settings.startAtLogin}
          request="settings.update"
          onChange={(v) => void update({ startAtLogin: v }).then(setError)}
        />
        {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
        <NumberSetting
          label="Poll interval (seconds)"
          hint="How often each agent's session is checked."
          field="pollIntervalSec"
          value={settings.pollIntervalSec}
          min={5}
          max={3600}
          save={(v) => update({ pollIntervalSec: v })}
          request="settings.update"
        />
      </section>
      <section className="card" aria-labelledby="tunnel-title">
        <h3 id="tunnel-title">Tunnel</h3>
        <NumberSetting
          label="Tunnel port"
          hint={`Loopback port the webhook receiver listens on, kept across restarts so hook URLs registered with the service keep working (default ${DEFAULT_TUNNEL_PORT}).`}
          field="tunnel.port"
          value={settings.tunnel.port}
          min={1}
          max={65535}
          save={(v) => update({ tunnel: { ...settings.tunnel, port: v } })}
          request="settings.update"
        />
      </section>
      <MessageNotifications settings={settings} />
      <MessageRetention />
    </>
  );
}

function Diagnostics() {
  const api = useApp((s) => s.exportDiagnostics);
  const [error, setError] = useState<ErrorDTO | null>(null);
  return (
    <section className="card" aria-labelledby="diag-title">
      <h3 id="diag-title">Diagnostics</h3>
      <p>A redacted report (no keys, no secrets) to attach to a support request.</p>
      <AsyncButton
        className="secondary"
        busyText="Preparing…"
        request="diagnostics.export"
        onRun={async () => {
          const r = await api();
          if (r.ok) downloadText(r.value.filename, r.value.content);
          setError(r.ok ? null : r.error);
        }}
      >
        Export diagnostics
      </AsyncButton>
      {error && <ErrorNotice error={error} />}
    </section>
  );
}

export function SettingsScreen() {
  return (
    <section aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <HubConnection />
      <General />
      <ThemePicker />
      <TeamsManager />
      <Diagnostics />
    </section>
  );
}
