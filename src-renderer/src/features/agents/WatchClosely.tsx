// How short a drop the monitor can miss for this agent, from the poll interval it actually uses, and
// the "Watch closely" switch that polls the agent at the fast interval all the time.
import type { AgentDTO } from '../../../../src-shared/contract';
import { SavedCheckbox } from '../../components/SavedCheckbox';
import { useApp } from '../../store/react';
import { detectionWindow } from '../alerts/detection-window';

export function WatchClosely({ agent }: { agent: AgentDTO }) {
  const settings = useApp((s) => s.settings);
  const setWatch = useApp((s) => s.setWatchClosely);
  return (
    <div className="watch-closely">
      <SavedCheckbox
        label="Watch closely"
        request="agents.watchClosely"
        saved={agent.watchClosely}
        save={(next) => setWatch(agent.teamId, agent.agentId, next)}
        hint={(on) =>
          settings
            ? on
              ? `Polled every ${settings.fastPollIntervalSec} s: drops shorter than about ${settings.fastPollIntervalSec} s can be missed.`
              : `${detectionWindow(settings.pollIntervalSec)} Watch closely polls it every ${settings.fastPollIntervalSec} s.`
            : 'Polls this agent at the fast interval all the time, so short drops are seen.'
        }
      />
    </div>
  );
}
