// Add a team: name, service address, API key, agent IDs. On error the typed values stay (the key
// is cleared only after success) and the field that failed is marked.
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

function splitAgentIds(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((a) => a.trim())
    .filter(Boolean);
}

export function TeamForm({ extraActions, onDone }: { extraActions?: (busy: boolean, run: (w: () => Promise<ErrorDTO | null>) => void) => ReactNode; onDone?: () => void }) {
  const addTeam = useApp((s) => s.addTeam);
  const [label, setLabel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [agents, setAgents] = useState('');
  const [allowInsecureHttp, setAllowInsecureHttp] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = { label: useId(), baseUrl: useId(), apiKey: useId(), agents: useId(), error: useId(), keyHint: useId(), insecure: useId(), insecureHint: useId() };

  const run = (work: () => Promise<ErrorDTO | null>) => {
    setBusy(true);
    setError(null);
    void work().then((e) => {
      setBusy(false);
      if (e) setError(e);
      else {
        setApiKey('');
        onDone?.();
      }
    });
  };

  const onSubmit = (ev: FormEvent) => {
    ev.preventDefault();
    run(() => addTeam({ label: label.trim(), baseUrl: baseUrl.trim(), apiKey, agentIds: splitAgentIds(agents), allowInsecureHttp }));
  };

  // A rejected key or an unreachable address points at its field even when the error names none.
  const errField = error?.field ?? (error?.kind === 'unauthorized' ? 'apiKey' : error?.kind === 'network-error' ? 'baseUrl' : undefined);
  const invalid = (field: string, describedBy?: string) =>
    errField === field || errField?.startsWith(`${field}.`)
      ? { 'aria-invalid': true, 'aria-describedby': [ids.error, describedBy].filter(Boolean).join(' ') }
      : describedBy
        ? { 'aria-describedby': describedBy }
        : {};

  return (
    <form onSubmit={onSubmit} className="form" aria-busy={busy}>
      <label htmlFor={ids.label}>Team name</label>
      <input id={ids.label} value={label} onChange={(e) => setLabel(e.target.value)} required autoComplete="off" {...invalid('label')} />
      <label htmlFor={ids.baseUrl}>Service address</label>
      <input id={ids.baseUrl} type="url" inputMode="url" placeholder="https://…" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required {...invalid('baseUrl')} />
      <label htmlFor={ids.apiKey}>Team API key</label>
      <input id={ids.apiKey} type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} required autoComplete="off" {...invalid('apiKey', ids.keyHint)} />
      <p className="hint" id={ids.keyHint}>
        Kept in your system keychain; the app only ever shows its last four characters.
      </p>
      <label htmlFor={ids.agents}>Agent IDs (from the dashboard, comma separated)</label>
      <input id={ids.agents} value={agents} onChange={(e) => setAgents(e.target.value)} autoComplete="off" {...invalid('agents')} />
      <div className="switch">
        <input id={ids.insecure} type="checkbox" checked={allowInsecureHttp} onChange={(e) => setAllowInsecureHttp(e.target.checked)} aria-describedby={ids.insecureHint} />
        <label htmlFor={ids.insecure}>Allow plain HTTP to this address</label>
      </div>
      <p className="hint" id={ids.insecureHint}>
        Off by default: the key is then refused to an http:// address on another machine, where anyone on the way could read it. This machine (localhost) is always fine.
      </p>
      {error && <ErrorNotice id={ids.error} error={error} />}
      {busy && <p className="muted">Checking the key with the service…</p>}
      <div className="actions">
        <button type="submit" disabled={busy}>
          Add team
        </button>
        {extraActions?.(busy, run)}
      </div>
    </form>
  );
}
