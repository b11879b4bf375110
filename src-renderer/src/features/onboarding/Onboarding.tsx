// First run: add a team with its API key, or try the local demo emulator.
import { useId, useState, type FormEvent } from 'react';
import type { ErrorDTO } from '../../../../src-preload/contract';
import { useApp } from '../../store/react';

export function Onboarding() {
  const addTeam = useApp((s) => s.addTeam);
  const startDemo = useApp((s) => s.startDemo);
  const [label, setLabel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [agents, setAgents] = useState('');
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = { label: useId(), baseUrl: useId(), apiKey: useId(), agents: useId(), error: useId() };

  const run = async (work: () => Promise<ErrorDTO | null>) => {
    setBusy(true);
    setError(null);
    const e = await work();
    setBusy(false);
    if (e) setError(e);
    else setApiKey('');
  };

  const onSubmit = (ev: FormEvent) => {
    ev.preventDefault();
    const agentIds = agents.split(/[\s,]+/).map((a) => a.trim()).filter(Boolean);
    void run(() => addTeam({ label: label.trim(), baseUrl: baseUrl.trim(), apiKey, agentIds }));
  };

  const invalid = (field: string) => (error?.field === field ? { 'aria-invalid': true, 'aria-describedby': ids.error } : {});

  return (
    <section aria-labelledby="onboarding-title" className="card">
      <h2 id="onboarding-title">Welcome</h2>
      <p>Add your team to watch its agents' numbers, or try everything against a local demo service first.</p>
      <form onSubmit={onSubmit} className="form">
        <label htmlFor={ids.label}>Team name</label>
        <input id={ids.label} value={label} onChange={(e) => setLabel(e.target.value)} required autoComplete="off" {...invalid('label')} />
        <label htmlFor={ids.baseUrl}>Service address</label>
        <input id={ids.baseUrl} type="url" inputMode="url" placeholder="https://…" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required {...invalid('baseUrl')} />
        <label htmlFor={ids.apiKey}>Team API key</label>
        <input id={ids.apiKey} type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} required autoComplete="off" {...invalid('apiKey')} />
        <p className="hint">Kept in your system keychain; the app only ever shows its last four characters.</p>
        <label htmlFor={ids.agents}>Agent IDs (from the dashboard, comma separated)</label>
        <input id={ids.agents} value={agents} onChange={(e) => setAgents(e.target.value)} autoComplete="off" {...invalid('agents')} />
        {error && (
          <p id={ids.error} role="alert" className="error">
            {error.message}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={busy}>
            Add team
          </button>
          <button type="button" className="secondary" disabled={busy} onClick={() => void run(startDemo)}>
            Try the demo emulator
          </button>
        </div>
      </form>
    </section>
  );
}
