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
  // The switch follows the click at once; a refused change puts it back.
  const [asked, setAsked] = useState<boolean | null>(null);
  const [error, setError] = useState<ErrorDTO | null>(null);
  const id = useId();
  const on = asked ?? agent.watchClosely;
  const toggle = async (next: boolean) => {
    setAsked(next);
    setError(await setWatch(agent.teamId, agent.agentId, next));
    setAsked(null);
  };
  return (
    <div className="watch-closely">
      <label htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={on}
          disabled={asked !== null}
          onChange={(e) => void toggle(e.target.checked)}
          aria-describedby={`${id}-hint`}
        />{' '}
        Watch closely
      </label>
      <p id={`${id}-hint`} className="hint">
        {settings
          ? on
            ? `Polled every ${settings.fastPollIntervalSec} s: drops shorter than about ${settings.fastPollIntervalSec} s can be missed.`
            : `${detectionWindow(settings.pollIntervalSec)} Watch closely polls it every ${settings.fastPollIntervalSec} s.`
          : 'Polls this agent at the fast interval all the time, so short drops are seen.'}
      </p>
      {error && <ErrorNotice error={error} />}
    </div>
  );
}
