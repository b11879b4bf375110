// First run: add a team with its API key, or try the local demo emulator.
import { useConnectedHub, useGate } from '../../components/allowed';
import { useApp } from '../../store/react';
import { TeamForm } from './TeamForm';

export function Onboarding() {
  const startDemo = useApp((s) => s.startDemo);
  const demoGate = useGate('demo.start');
  const onHub = useConnectedHub() !== null;
  return (
    <section aria-labelledby="onboarding-title" className="card">
      <h2 id="onboarding-title">Welcome</h2>
      <p>
        {onHub
          ? 'The team hub has no teams yet. Add your team to watch its agents’ numbers.'
          : "Add your team to watch its agents' numbers, or try everything against a local demo service first."}
      </p>
      <TeamForm
        extraActions={(busy, run) => (
          <>
            <button
              type="button"
              className="secondary"
              disabled={busy || !demoGate.allowed}
              onClick={() => run(startDemo)}
              {...demoGate.props}
            >
              Try the demo emulator
            </button>
            {demoGate.hiddenNote}
          </>
        )}
      />
    </section>
  );
}
