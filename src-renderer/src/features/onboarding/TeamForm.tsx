// Add a team: name, service address, API key, agent IDs. Empty required fields are each marked with
// their own message (and the first one takes focus) before anything is sent. On a service or main
// process error the typed values stay (the key is cleared only after success) and the field that
// failed is marked.
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { LABEL_MAX_LENGTH } from '../../../../src-shared/limits';
import { useConnectedHub, useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

type Field = 'label' | 'baseUrl' | 'apiKey' | 'agents';
type Missing = Partial<Record<Field, string>>;

const REQUIRED: { field: Exclude<Field, 'agents'>; message: string }[] = [
  { field: 'label', message: 'Give the team a name, e.g. Support.' },
  { field: 'baseUrl', message: 'Give the service address, e.g. https://api.example.com.' },
  { field: 'apiKey', message: "Paste the team's API key from the dashboard." },
];

function splitAgentIds(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((a) => a.trim())
    .filter(Boolean);
}

/** Each required field left empty, with the message that says what to put there. */
function missingFields(values: Record<Exclude<Field, 'agents'>, string>): Missing {
  const out: Missing = {};
  for (const r of REQUIRED) if (values[r.field].trim() === '') out[r.field] = r.message;
  return out;
}

export function TeamForm({
  extraActions,
  onDone,
}: {
  extraActions?: (busy: boolean, run: (w: () => Promise<ErrorDTO | null>) => void) => ReactNode;
  onDone?: () => void;
}) {
  const addTeam = useApp((s) => s.addTeam);
  const [label, setLabel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [agents, setAgents] = useState('');
  const [allowInsecureHttp, setAllowInsecureHttp] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [missing, setMissing] = useState<Missing>({});
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const ids = {
    label: useId(),
    baseUrl: useId(),
    apiKey: useId(),
    agents: useId(),
    error: useId(),
    keyHint: useId(),
    insecure: useId(),
    insecureHint: useId(),
  };

  const run = (work: () => Promise<ErrorDTO | null>) => {
    setBusy(true);
    setError(null);
    setMissing({});
    void work().then((e) => {
      setBusy(false);
      if (e) setError(e);
      else {
        setApiKey('');
        onDone?.();
      }
    });
  };

  const gate = useGate('teams.add');
  const onHub = useConnectedHub() !== null;
  const onSubmit = (ev: FormEvent) => {
    ev.preventDefault();
    if (!gate.allowed) return;
    const gaps = missingFields({ label, baseUrl, apiKey });
    const first = REQUIRED.find((r) => gaps[r.field]);
    if (first) {
      setMissing(gaps);
      setError(null);
      form.current?.ownerDocument.getElementById(ids[first.field])?.focus();
      return;
    }
    run(() =>
      addTeam({
        label: label.trim(),
        baseUrl: baseUrl.trim(),
        apiKey,
        agentIds: splitAgentIds(agents),
        allowInsecureHttp,
      }),
    );
  };

  // A rejected key or an unreachable address points at its field even when the error names none.
  const errField =
    error?.field ??
    (error?.kind === 'key-rejected' ? 'apiKey' : error?.kind === 'network-error' ? 'baseUrl' : undefined);
  const msgId = (field: Field) => `${ids[field]}-msg`;
  const marks = (field: Field, describedBy?: string) => {
    const byError = errField === field || errField?.startsWith(`${field}.`);
    const own = missing[field] ? msgId(field) : undefined;
    const described = [own, byError ? ids.error : undefined, describedBy].filter(Boolean).join(' ');
    return {
      ...(own || byError ? { 'aria-invalid': true } : {}),
      ...(described ? { 'aria-describedby': described } : {}),
    };
  };
  const message = (field: Field) =>
    missing[field] ? (
      <p id={msgId(field)} className="field-error">
        {missing[field]}
      </p>
    ) : null;
  /** A typed value; the field's "missing" message goes once something is typed. */
  const edit = (setValue: (v: string) => void, field: Field, value: string) => {
    setValue(value);
    if (missing[field]) setMissing((m) => ({ ...m, [field]: undefined }));
  };

  return (
    <form ref={form} onSubmit={onSubmit} className="form" aria-busy={busy} noValidate>
      <label htmlFor={ids.label}>Team name</label>
      <input
        id={ids.label}
        value={label}
        onChange={(e) => edit(setLabel, 'label', e.target.value)}
        maxLength={LABEL_MAX_LENGTH}
        aria-required="true"
        autoComplete="off"
        {...marks('label')}
      />
      {message('label')}
      <label htmlFor={ids.baseUrl}>Service address</label>
      <input
        id={ids.baseUrl}
        type="url"
        inputMode="url"
        placeholder="https://…"
        value={baseUrl}
        onChange={(e) => edit(setBaseUrl, 'baseUrl', e.target.value)}
        aria-required="true"
        {...marks('baseUrl')}
      />
      {message('baseUrl')}
      <label htmlFor={ids.apiKey}>Team API key</label>
      <input
        id={ids.apiKey}
        type="password"
        value={apiKey}
        onChange={(e) => edit(setApiKey, 'apiKey', e.target.value)}
        aria-required="true"
        autoComplete="off"
        {...marks('apiKey', ids.keyHint)}
      />
      {message('apiKey')}
      <p className="hint" id={ids.keyHint}>
        {onHub
          ? 'Kept by the team hub, encrypted; the app only ever shows its last four characters.'
          : 'Kept in your system keychain; the app only ever shows its last four characters.'}
      </p>
      <label htmlFor={ids.agents}>Agent IDs (from the dashboard, comma separated)</label>
      <input
        id={ids.agents}
        value={agents}
        onChange={(e) => setAgents(e.target.value)}
        autoComplete="off"
        {...marks('agents')}
      />
      <div className="switch">
        <input
          id={ids.insecure}
          type="checkbox"
          checked={allowInsecureHttp}
          onChange={(e) => setAllowInsecureHttp(e.target.checked)}
          aria-describedby={ids.insecureHint}
        />
        <label htmlFor={ids.insecure}>Allow plain HTTP to this address</label>
      </div>
      <p className="hint" id={ids.insecureHint}>
        Off by default: the key is then refused to an http:// address on another machine, where anyone on the way could
        read it. This machine (localhost) is always fine.
      </p>
      {error && <ErrorNotice id={ids.error} error={error} context="adding" />}
      {busy && <p className="muted">Checking the key with the service…</p>}
      <div className="actions">
        <button type="submit" disabled={busy || !gate.allowed} {...gate.props}>
          Add team
        </button>
        {extraActions?.(busy, run)}
      </div>
      {gate.note}
    </form>
  );
}
