// The receiver's port is held by another process: who holds it (as far as the main side can tell)
// and, in one click, a port found free: saved as the tunnel port, and the receiver starts there.
// Hook URLs registered with the old port then need registering again.
import { useState } from 'react';
import type { ErrorDTO } from '../../../../src-shared/contract';
import { AsyncButton } from '../../components/AsyncButton';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';

export function PortTakenNotice() {
  const taken = useApp((s) => s.tunnelStatus?.portTaken ?? null);
  const setPort = useApp((s) => s.setTunnelPort);
  const loadSettings = useApp((s) => s.loadSettings);
  const [error, setError] = useState<ErrorDTO | null>(null);
  if (!taken) return null;
  const use = async (port: number) => {
    const e = await setPort(port);
    setError(e);
    if (!e) await loadSettings();
  };
  return (
    <div role="alert" className="notice notice-error port-taken">
      <p>
        <strong>
          <span aria-hidden="true">⚠ </span>
          Port {taken.port} is taken by {taken.owner}, so the receiver cannot listen.
        </strong>{' '}
        {taken.alternative !== null
          ? `Use port ${taken.alternative} instead (free now; saved as the tunnel port), or stop what holds ${taken.port} and open this screen again.`
          : `No free port was found nearby: choose another tunnel port in Settings, or stop what holds ${taken.port}.`}{' '}
        A hook URL registered at port {taken.port} does not reach the receiver on another port: register it again there.
      </p>
      {taken.alternative !== null && (
        <AsyncButton
          className="small"
          busyText="Moving the receiver…"
          onRun={() => use(taken.alternative!)}
          request="settings.update"
        >
          Use port {taken.alternative} instead
        </AsyncButton>
      )}
      {error && <ErrorNotice error={error} />}
    </div>
  );
}
