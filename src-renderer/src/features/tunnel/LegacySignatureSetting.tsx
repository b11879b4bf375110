// Whether the receiver accepts a delivery signed only with the legacy header (no timestamp, so a
// captured delivery can be replayed). Off by default; saved as the app's tunnel setting.
import { useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Switch } from '../../components/Switch';
import { useApp } from '../../store/react';

export function LegacySignatureSetting() {
  const tunnel = useApp((s) => s.settings?.tunnel ?? null);
  const update = useApp((s) => s.updateSettings);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  if (!tunnel) return null;
  const toggle = async (next: boolean) => {
    setBusy(true);
    setError(await update({ tunnel: { port: tunnel.port, forwardTo: tunnel.forwardTo, allowLegacySignature: next } }));
    setBusy(false);
  };
  return (
    <div className="legacy-signature">
      <Switch
        label="Accept deliveries signed only with the legacy signature"
        checked={tunnel.allowLegacySignature === true}
        disabled={busy}
        request="settings.update"
        onChange={(next) => void toggle(next)}
        hint="The legacy x-service-signature header carries no timestamp, so anyone who captured a delivery can send it again. Leave this off unless your service sends only that header."
      />
      {error && <ErrorNotice error={error} />}
    </div>
  );
}
