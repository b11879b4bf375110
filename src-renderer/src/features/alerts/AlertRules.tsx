// Alert rules kept in the app settings (settings.get / settings.update).
import { useId } from 'react';
import { useApp } from '../../store/react';
import { NumberSetting } from '../settings/NumberSetting';

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
      ) : (
        <p aria-busy="true">Loading settings…</p>
      )}
    </section>
  );
}
