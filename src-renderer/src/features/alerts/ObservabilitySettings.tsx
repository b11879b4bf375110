// Feeding the tools on-call already runs: Prometheus scrapes the app's /metrics (on 127.0.0.1 only),
// and incidents are posted to an Alertmanager, firing then resolved, to be grouped, silenced and routed there.
import { useId, useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Switch } from '../../components/Switch';
import { useApp } from '../../store/react';
import { alertsPostedElsewhereWords } from '../../../../src-shared/vocabulary';
import { NumberSetting } from '../settings/NumberSetting';
import { UrlSetting } from './UrlSetting';

/** The port metrics are first offered on (a common one for exporters). */
const DEFAULT_METRICS_PORT = 9464;

export function ObservabilitySettings() {
  const settings = useApp((s) => s.settings);
  const update = useApp((s) => s.updateSettings);
  const postedBy = useApp((s) => s.alertStatus?.alertsPostedBy ?? null);
  const id = useId();
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [busy, setBusy] = useState(false);
  if (!settings) return null;
  const port = settings.metricsPort;
  const toggle = async (on: boolean) => {
    setBusy(true);
    setError(await update({ metricsPort: on ? DEFAULT_METRICS_PORT : null }));
    setBusy(false);
  };
  return (
    <section className="card" aria-labelledby={id}>
      <h3 id={id}>Prometheus and Alertmanager</h3>
      <Switch
        label="Serve Prometheus metrics"
        checked={port !== null}
        disabled={busy}
        request="settings.update"
        onChange={(on) => void toggle(on)}
        hint="Each agent's health, poll latency and errors, alerts raised, tunnel deliveries and the send budget, in OpenMetrics, on this machine only."
      />
      {error && <ErrorNotice error={error} onDismiss={() => setError(null)} />}
      {port !== null && (
        <>
          <NumberSetting
            label="Metrics port"
            hint="Prometheus scrapes http://127.0.0.1:PORT/metrics."
            field="metricsPort"
            value={port}
            min={1}
            max={65535}
            save={(v) => update({ metricsPort: v })}
            request="settings.update"
          />
          {port > 0 && (
            <p className="hint">
              Scrape target: <code>http://127.0.0.1:{port}/metrics</code>
            </p>
          )}
        </>
      )}
      <UrlSetting
        label="Alertmanager URL"
        field="alertmanagerUrl"
        value={settings.alertmanagerUrl}
        placeholder="http://127.0.0.1:9093"
        hint="Incidents are posted to its v2 API as they fire and resolve; grouping, silences and routing (PagerDuty, Slack, email) stay in Alertmanager. Leave empty for none."
        noun="Alertmanager"
        savedNote="Incidents are now also posted to Alertmanager."
        removedNote="Incidents are no longer posted to Alertmanager."
        notice={
          postedBy !== null && settings.alertmanagerUrl !== null ? alertsPostedElsewhereWords(postedBy.pid) : null
        }
      />
    </section>
  );
}
