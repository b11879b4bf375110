// Make the receiver reachable from the internet: nothing (this computer only), ngrok (its authtoken
// is kept in the OS keychain; paste it here once), or your own tunnel command ({port} becomes the
// receiver's port; the first public URL it prints is used). The chosen agents (none unless picked)
// are registered at the public URL once it is up, after a confirm step that says, for each, which
// URL stops receiving and that a new signing secret is issued.
import { useEffect, useId, useState } from 'react';
import type { ErrorDTO, ExposeArgs } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';
import { nameWords, useNames } from './names';
import { NO_AGENTS } from './urls';

type Choice = 'none' | 'ngrok' | 'command';

const CHOICES: { value: Choice; label: string; hint: string }[] = [
  { value: 'none', label: 'Nothing', hint: 'Only this computer reaches the receiver (enough for the emulator).' },
  { value: 'ngrok', label: 'ngrok', hint: 'A public HTTPS URL from ngrok, with your ngrok authtoken.' },
  {
    value: 'command',
    label: 'My own tunnel command',
    hint: 'cloudflared, tailscale funnel, ssh -R …: any program that prints its public URL.',
  },
];

function NgrokToken() {
  const token = useApp((s) => s.tunnelStatus?.exposure.ngrokAuthtoken);
  const save = useApp((s) => s.setNgrokAuthtoken);
  const uid = useId();
  const [value, setValue] = useState('');
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  if (token?.stored && !editing) {
    return (
      <p>
        Authtoken <code>{token.hint}</code> is kept in the keychain.{' '}
        <button type="button" className="secondary small" onClick={() => setEditing(true)}>
          Replace it
        </button>
      </p>
    );
  }
  return (
    <div className="form inline-form">
      <label htmlFor={`${uid}-token`}>ngrok authtoken</label>
      <input
        id={`${uid}-token`}
        type="password"
        autoComplete="off"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        aria-describedby={`${uid}-token-hint`}
      />
      <span id={`${uid}-token-hint`} className="hint">
        From dashboard.ngrok.com → Your Authtoken. Kept in the OS keychain, never shown again (or run{' '}
        <code>channel-companion secret set ngrok-authtoken</code>).
      </span>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={!value.trim()}
          onClick={async () => {
            const r = await save(value.trim());
            setValue('');
            setError(r.ok ? null : r.error);
            if (r.ok) setEditing(false);
          }}
        >
          Save to the keychain
        </button>
      </div>
      {error && <ErrorNotice error={error} />}
    </div>
  );
}

export function ExposePanel() {
  const exposure = useApp((s) => s.tunnelStatus?.exposure);
  const agents = useApp((s) => s.tunnelStatus?.agents ?? NO_AGENTS);
  const expose = useApp((s) => s.expose);
  const unexpose = useApp((s) => s.unexpose);
  const names = useNames();
  const uid = useId();
  const active = exposure?.state === 'up' || exposure?.state === 'starting';
  const [choice, setChoice] = useState<Choice>(active && exposure?.kind ? exposure.kind : 'none');
  const [command, setCommand] = useState('');
  const [domain, setDomain] = useState('');
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  useEffect(() => {
    if (active && exposure?.kind) setChoice(exposure.kind);
  }, [active, exposure?.kind]);
  // None by default: registering replaces each agent's webhook (asked first, below).
  const picked = chosen ?? new Set<string>();
  const [confirming, setConfirming] = useState(false);
  const commandProblem =
    choice === 'command' && command.trim() && !command.includes('{port}')
      ? "Put {port} where the receiver's port goes."
      : null;

  const toRegister = agents.filter((a) => picked.has(agentKey(a.teamId, a.agentId)));
  const start = async () => {
    setConfirming(false);
    setBusy(true);
    const register = agents
      .filter((a) => picked.has(agentKey(a.teamId, a.agentId)))
      .map((a) => ({ teamId: a.teamId, agentId: a.agentId }));
    const args: ExposeArgs =
      choice === 'command'
        ? { kind: 'command', command: command.trim(), register }
        : { kind: 'ngrok', register, ...(domain.trim() ? { domain: domain.trim() } : {}) };
    const r = choice === 'none' ? await unexpose() : await expose(args);
    setBusy(false);
    setError(r.ok ? null : r.error);
  };

  return (
    <div className="expose-panel">
      <fieldset className="choices">
        <legend>Reach the receiver from the internet with</legend>
        {CHOICES.map((c) => (
          <label key={c.value} className="radio">
            <input
              type="radio"
              name={`${uid}-choice`}
              value={c.value}
              checked={choice === c.value}
              onChange={() => setChoice(c.value)}
            />{' '}
            {c.label} <span className="muted">— {c.hint}</span>
          </label>
        ))}
      </fieldset>
      {choice === 'ngrok' && (
        <>
          <NgrokToken />
          <div className="form inline-form">
            <label htmlFor={`${uid}-domain`}>Reserved domain (optional)</label>
            <input
              id={`${uid}-domain`}
              value={domain}
              onChange={(e) => setDomain(e.target.value)}
              placeholder="my-app.ngrok.app"
            />
          </div>
        </>
      )}
      {choice === 'command' && (
        <div className="form inline-form">
          <label htmlFor={`${uid}-cmd`}>Command</label>
          <input
            id={`${uid}-cmd`}
            value={command}
            onChange={(e) => setCommand(e.target.value)}
            placeholder="cloudflared tunnel --url http://127.0.0.1:{port}"
            spellCheck={false}
            aria-invalid={commandProblem !== null}
            aria-describedby={`${uid}-cmd-hint`}
          />
          <span id={`${uid}-cmd-hint`} className={commandProblem ? 'error' : 'hint'}>
            {commandProblem ??
              '{port} becomes the receiver\u2019s port. The first public URL the program prints is used; it is stopped when you stop exposing or quit.'}
          </span>
        </div>
      )}
      {choice !== 'none' && agents.length > 0 && (
        <fieldset className="choices">
          <legend>Once it is up, register the public URL for</legend>
          {agents.map((a) => {
            const k = agentKey(a.teamId, a.agentId);
            return (
              <label key={k} className="check">
                <input
                  type="checkbox"
                  checked={picked.has(k)}
                  onChange={(e) => {
                    const next = new Set(picked);
                    if (e.target.checked) next.add(k);
                    else next.delete(k);
                    setChosen(next);
                  }}
                />{' '}
                {nameWords(names(a.teamId, a.agentId))}
              </label>
            );
          })}
        </fieldset>
      )}
      <div className="actions">
        <button
          type="button"
          disabled={
            busy ||
            confirming ||
            (choice === 'command' && (!command.trim() || commandProblem !== null)) ||
            (choice === 'none' && !active)
          }
          onClick={() => (choice !== 'none' && toRegister.length > 0 ? setConfirming(true) : void start())}
        >
          {choice === 'none' ? 'Stop exposing' : active ? 'Restart with this choice' : 'Start'}
        </button>
        {busy && <span aria-busy="true">Working…</span>}
      </div>
      {confirming && (
        <div className="confirm-takeover" role="group" aria-label="Confirm the new webhook URLs">
          <p>Once the public URL is up, the webhook of each agent below points at it:</p>
          <ul>
            {toRegister.map((a) => (
              <li key={agentKey(a.teamId, a.agentId)}>
                <strong>{nameWords(names(a.teamId, a.agentId))}</strong>: {a.registration.takeover}
              </li>
            ))}
          </ul>
          <div className="actions">
            <button type="button" className="small" onClick={() => void start()}>
              Start and replace the webhooks
            </button>
            <button type="button" className="secondary small" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {exposure && exposure.registrations.length > 0 && (
        <ul className="plain registrations" aria-label="Registrations at the public URL">
          {exposure.registrations.map((r) => (
            <li key={agentKey(r.teamId, r.agentId)}>
              {nameWords(names(r.teamId, r.agentId))}:{' '}
              {r.state === 'registered' ? (
                <span className="badge tone-ok">Registered</span>
              ) : r.state === 'failed' ? (
                <span className="badge tone-bad">Not registered</span>
              ) : (
                <span aria-busy="true">registering…</span>
              )}{' '}
              <code className="url">{r.url}</code>
              {r.error && <span className="error"> — {r.error}</span>}
            </li>
          ))}
        </ul>
      )}
      {error && <ErrorNotice error={error} />}
    </div>
  );
}
