// Alert rules kept in the app settings (settings.get / settings.update): escalation, the monitor's
// four rules (applied by the monitor at once), and the alert webhook.
import { useId } from 'react';
import type { AlertRulesDTO } from '../../../../src-preload/contract';
import { useApp } from '../../store/react';
import { NumberSetting } from '../settings/NumberSetting';
import { AlertWebhookSetting } from './AlertWebhookSetting';

/** The four monitor rules, with the ranges the main process accepts. */
const RULES: Array<{ key: keyof AlertRulesDTO; label: string; hint: string; min: number; max: number }> = [
  { key: 'reconnectGraceSec', label: 'Reconnect grace (seconds)', hint: 'How long a reconnecting link may last before it alerts (0: at once).', min: 0, max: 3600 },
  { key: 'realertMinutes', label: 'Remind every (minutes)', hint: 'How often a still-open incident is alerted again (0: never).', min: 0, max: 1440 },
  { key: 'flapCount', label: 'Flapping after (drops)', hint: 'This many drops within the flap window count as flapping.', min: 2, max: 100 },
  { key: 'flapWindowMinutes', label: 'Flap window (minutes)', hint: 'The span the drops above are counted in.', min: 1, max: 1440 },
];

export function AlertRules() {
  const settings = useApp((s) => s.settings);
  const id = useId();
  return (
    <section className="card" aria-labelledby={id}>
      <h3 id={id}>Alert rules</h3>
      {settings ? (
        <NumberSetting
          label="Escalate after (minutes)"
          hint="How long a needs-scan or unreachable state lasts before its incident becomes urgent."
          field="escalateAfterMin"
          value={settings.escalateAfterMin}
          min={0}
          max={1440}
          toPatch={(v) => ({ escalateAfterMin: v })}
        />
      ) : null}
      {settings &&
        RULES.map((r) => (
          <NumberSetting
            key={r.key}
            label={r.label}
            hint={r.hint}
            field={`alertRules.${r.key}`}
            value={settings.alertRules[r.key]}
            min={r.min}
            max={r.max}
            toPatch={(v) => ({ alertRules: { ...settings.alertRules, [r.key]: v } })}
          />
        ))}
      {settings ? (
        <AlertWebhookSetting value={settings.alertWebhookUrl} />
      ) : (
        <p aria-busy="true">Loading settings…</p>
      )}
    </section>
  );
}
