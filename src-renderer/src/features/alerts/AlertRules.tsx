// Alert rules kept in the app settings (settings.get / settings.update): escalation and the
// monitor's five rules (applied by the monitor at once) in one form with one Save, and the alert
// webhook. Every field is checked here first (whole number in range); a refused save keeps what
// was typed and marks the fields at fault.
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { AlertRulesDTO, AppSettingsDTO, ErrorDTO } from '../../../../src-shared/contract';
import { useGate } from '../../components/allowed';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';
import { alertsPostedElsewhereWords } from '../../../../src-shared/vocabulary';
import { checkWhole } from '../settings/NumberSetting';
import { detectionWindow } from './detection-window';
import { UrlSetting } from './UrlSetting';

type RuleKey = 'escalateAfterMin' | keyof AlertRulesDTO;

/** The rules, with the ranges the main process accepts. */
const RULES: Array<{ key: RuleKey; label: string; hint: string; min: number; max: number }> = [
  {
    key: 'escalateAfterMin',
    label: 'Escalate after (minutes)',
    hint: 'How long a needs-scan or unreachable state lasts before its incident becomes urgent.',
    min: 0,
    max: 1440,
  },
  {
    key: 'reconnectGraceSec',
    label: 'Reconnect grace (seconds)',
    hint: 'How long a reconnecting link may last before it alerts (0: at once).',
    min: 0,
    max: 3600,
  },
  {
    key: 'repeatDropGraceSec',
    label: 'Repeat drop grace (seconds)',
    hint: 'How long a drop within the flap window of an earlier one may last before it alerts (at least the reconnect grace); shorter ones count toward flapping.',
    min: 0,
    max: 3600,
  },
  {
    key: 'realertMinutes',
    label: 'Remind every (minutes)',
    hint: 'How often a still-open incident is alerted again (0: never).',
    min: 0,
    max: 1440,
  },
  {
    key: 'flapCount',
    label: 'Flapping after (drops)',
    hint: 'This many drops within the flap window count as flapping.',
    min: 2,
    max: 100,
  },
  {
    key: 'flapWindowMinutes',
    label: 'Flap window (minutes)',
    hint: 'The span the drops above are counted in.',
    min: 1,
    max: 1440,
  },
];

type Texts = Record<RuleKey, string>;

function textsOf(s: AppSettingsDTO): Texts {
  return {
    escalateAfterMin: String(s.escalateAfterMin),
    reconnectGraceSec: String(s.alertRules.reconnectGraceSec),
    repeatDropGraceSec: String(s.alertRules.repeatDropGraceSec),
    realertMinutes: String(s.alertRules.realertMinutes),
    flapCount: String(s.alertRules.flapCount),
    flapWindowMinutes: String(s.alertRules.flapWindowMinutes),
  };
}

function RulesForm({ settings }: { settings: AppSettingsDTO }) {
  const update = useApp((s) => s.updateSettings);
  const base = useId();
  const [texts, setTexts] = useState<Texts>(() => textsOf(settings));
  const [dirty, setDirty] = useState(false);
  const [problems, setProblems] = useState<Partial<Record<RuleKey, string>>>({});
  const [error, setError] = useState<ErrorDTO | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const gate = useGate('settings.update');
  // What the main process holds shows until the person starts typing.
  useEffect(() => {
    if (!dirty) setTexts(textsOf(settings));
  }, [settings, dirty]);

  const onSubmit = async (ev: FormEvent) => {
    ev.preventDefault();
    const found: Partial<Record<RuleKey, string>> = {};
    for (const r of RULES) {
      const bad = checkWhole(texts[r.key], r.min, r.max, r.label);
      if (bad) found[r.key] = bad;
    }
    setProblems(found);
    setSaved(false);
    if (Object.keys(found).length > 0) {
      setError(null);
      return;
    }
    const n = (k: RuleKey) => Number(texts[k]);
    setBusy(true);
    const e = await update({
      escalateAfterMin: n('escalateAfterMin'),
      alertRules: {
        reconnectGraceSec: n('reconnectGraceSec'),
        repeatDropGraceSec: n('repeatDropGraceSec'),
        realertMinutes: n('realertMinutes'),
        flapCount: n('flapCount'),
        flapWindowMinutes: n('flapWindowMinutes'),
      },
    });
    setBusy(false);
    setError(e);
    if (e?.field) {
      const key = RULES.find((r) => e.field === r.key || e.field === `alertRules.${r.key}`)?.key;
      if (key) setProblems({ [key]: e.message });
    }
    if (!e) {
      setDirty(false);
      setSaved(true);
    }
  };

  return (
    <form className="rules-form" onSubmit={(e) => void onSubmit(e)} aria-busy={busy} noValidate>
      <div className="rules-grid">
        {RULES.map((r) => {
          const id = `${base}-${r.key}`;
          const problem = problems[r.key];
          return (
            <div key={r.key} className="rule">
              <label htmlFor={id}>{r.label}</label>
              <input
                id={id}
                inputMode="numeric"
                value={texts[r.key]}
                onChange={(e) => {
                  const v = e.target.value;
                  setTexts((t) => ({ ...t, [r.key]: v }));
                  setDirty(true);
                  setSaved(false);
                }}
                aria-invalid={problem ? true : undefined}
                aria-describedby={`${id}-hint${problem ? ` ${id}-err` : ''}`}
              />
              <p id={`${id}-hint`} className="hint">
                {r.hint}
              </p>
              {problem && (
                <p id={`${id}-err`} className="field-error">
                  {problem}
                </p>
              )}
            </div>
          );
        })}
      </div>
      {Object.keys(problems).length > 0 && !error && (
        <p role="alert" className="notice notice-error">
          Not saved: {Object.keys(problems).length === 1 ? 'one value is' : 'some values are'} out of range (marked
          above).
        </p>
      )}
      {error && <ErrorNotice error={error} />}
      <div className="actions">
        <button type="submit" disabled={busy || !gate.allowed} {...gate.props}>
          {busy ? 'Saving…' : 'Save alert rules'}
        </button>
        {saved && <span role="status">Saved; the monitor uses them now.</span>}
      </div>
      {gate.note}
    </form>
  );
}

export function AlertRules() {
  const settings = useApp((s) => s.settings);
  const postedBy = useApp((s) => s.alertStatus?.alertsPostedBy ?? null);
  const id = useId();
  return (
    <section className="card" aria-labelledby={id}>
      <h3 id={id}>Alert rules</h3>
      {settings ? (
        <>
          <p className="hint">
            {detectionWindow(settings.pollIntervalSec)} After any reading that is not connected an agent is polled every{' '}
            {settings.fastPollIntervalSec} s for a while; "Watch closely" on an agent's page polls it that fast all the
            time.
          </p>
          <RulesForm settings={settings} />
          <UrlSetting
            label="Alert webhook URL"
            field="alertWebhookUrl"
            value={settings.alertWebhookUrl}
            placeholder="https://hooks.example.com/alerts"
            hint='Every alert is also sent here as JSON (with a "text" line). Leave empty for none.'
            noun="webhook"
            savedNote="Alerts are now also posted to the webhook."
            removedNote="Alerts are no longer posted to a webhook."
            notice={
              postedBy !== null && settings.alertWebhookUrl !== null ? alertsPostedElsewhereWords(postedBy.pid) : null
            }
          />
        </>
      ) : (
        <p aria-busy="true">Loading settings…</p>
      )}
    </section>
  );
}
