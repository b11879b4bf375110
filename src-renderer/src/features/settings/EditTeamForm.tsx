// The form that changes a team in place: its name, its service address, its key (typed anew; empty
// keeps the one in the keychain) and whether plain HTTP is allowed. The team keeps its id, so its
// incidents, timelines and registrations stay with it. A new address or key is checked with the
// team's agents first; a refusal changes nothing and says why beside the field at fault.
import { useId, useState, type FormEvent } from 'react';
import type { ErrorDTO, TeamDTO } from '../../../../src-shared/contract';
import { LABEL_MAX_LENGTH } from '../../../../src-shared/limits';
import { useConnectedHub } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

type Field = 'label' | 'baseUrl' | 'apiKey';

export function EditTeamForm({ team, onDone }: { team: TeamDTO; onDone: (saved: boolean) => void }) {
  const updateTeam = useApp((s) => s.updateTeam);
  const [label, setLabel] = useState(team.label);
  const [baseUrl, setBaseUrl] = useState(team.baseUrl);
  const [apiKey, setApiKey] = useState('');
  const [allowInsecureHttp, setAllowInsecureHttp] = useState(team.allowInsecureHttp === true);
  const [busy, setBusy] = useState(false);
  const onHub = useConnectedHub() !== null;
  const [error, setError] = useState<ErrorDTO | null>(null);
  const ids = {
    label: useId(),
    baseUrl: useId(),
    apiKey: useId(),
    keyHint: useId(),
    insecure: useId(),
    error: useId(),
  };

  const patch = {
    ...(label.trim() !== team.label ? { label: label.trim() } : {}),
    ...(baseUrl.trim() !== team.baseUrl ? { baseUrl: baseUrl.trim() } : {}),
    ...(apiKey.trim() !== '' ? { apiKey: apiKey.trim() } : {}),
    ...(allowInsecureHttp !== (team.allowInsecureHttp === true) ? { allowInsecureHttp } : {}),
  };
  const changed = Object.keys(patch).length > 0;

  const onSubmit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (!changed) return onDone(false);
    setBusy(true);
    const e = await updateTeam(team.teamId, patch);
    setBusy(false);
    setError(e);
    if (!e) onDone(true);
  };

  // A rejected key or an unreachable address points at its field even when the error names none.
  const errField: string | undefined =
    error?.field ??
    (error?.kind === 'key-rejected' ? 'apiKey' : error?.kind === 'network-error' ? 'baseUrl' : undefined);
  const marks = (field: Field, describedBy?: string) => {
    const wrong = errField === field;
    const described = [wrong ? ids.error : undefined, describedBy].filter(Boolean).join(' ');
    return { ...(wrong ? { 'aria-invalid': true } : {}), ...(described ? { 'aria-describedby': described } : {}) };
  };

  return (
    <form
      className="form"
      onSubmit={(e) => void onSubmit(e)}
      aria-label={`Edit team ${team.label}`}
      aria-busy={busy}
      noValidate
    >
      <label htmlFor={ids.label}>Team name</label>
      <input
        id={ids.label}
        value={label}
        onChange={(e) => setLabel(e.target.value)}
        maxLength={LABEL_MAX_LENGTH}
        aria-required="true"
        autoComplete="off"
        {...marks('label')}
      />
      <label htmlFor={ids.baseUrl}>Service address</label>
      <input
        id={ids.baseUrl}
        type="url"
        inputMode="url"
        value={baseUrl}
        onChange={(e) => setBaseUrl(e.target.value)}
        aria-required="true"
        {...marks('baseUrl')}
      />
      <label htmlFor={ids.apiKey}>New API key (optional)</label>
      <input
        id={ids.apiKey}
        type="password"
        value={apiKey}
        onChange={(e) => setApiKey(e.target.value)}
        autoComplete="off"
        {...marks('apiKey', ids.keyHint)}
      />
      <p className="hint" id={ids.keyHint}>
        Leave empty to keep the key ending {team.keyHint}.{' '}
        {onHub ? 'A new key is kept by the team hub, encrypted.' : 'A new key goes to your system keychain.'}
      </p>
      <div className="switch">
        <input
          id={ids.insecure}
          type="checkbox"
          checked={allowInsecureHttp}
          onChange={(e) => setAllowInsecureHttp(e.target.checked)}
        />
        <label htmlFor={ids.insecure}>Allow plain HTTP to this address</label>
      </div>
      {error && <ErrorNotice id={ids.error} error={error} />}
      {busy && <p className="muted">Checking with the team’s agents…</p>}
      <div className="actions">
        <button type="submit" disabled={busy}>
          Save team
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
