// How short a drop the monitor can miss for this agent, from the poll interval it actually uses, and
// the "Watch closely" switch that polls the agent at the fast interval all the time.
import { useId, useState } from 'react';
import type { AgentDTO, ErrorDTO } from '../../../../src-shared/contract';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useApp } from '../../store/react';
import { detectionWindow } from '../alerts/detection-window';

export function WatchClosely({ agent }: { agent: AgentDTO }) {
  const settings = useApp((s) => s.settings);
  const setWatch = useApp((s) => s.setWatchClosely);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const id = useId();
  const toggle = async (on: boolean) => {
    setBusy(true);
    setError(await setWatch(agent.teamId, agent.agentId, on));
    setBusy(false);
  };
  return (
    <div className="watch-closely">
      <label htmlFor={id}>
        <input id={id} type="checkbox" checked={agent.watchClosely} disabled={busy} onChange={(e) => void toggle(e.target.checked)} aria-describedby={`${id}-hint`} /> Watch closely
      </label>
      <p id={`${id}-hint`} className="hint">
        {settings
          ? agent.watchClosely
            ? `Polled every ${settings.fastPollIntervalSec} s: drops shorter than about ${settings.fastPollIntervalSec} s can be missed.`
            : `${detectionWindow(settings.pollIntervalSec)} Watch closely polls it every ${settings.fastPollIntervalSec} s.`
          : 'Polls this agent at the fast interval all the time, so short drops are seen.'}
      </p>
      {error && <ErrorNotice error={error} />}
    </div>
  );
}
