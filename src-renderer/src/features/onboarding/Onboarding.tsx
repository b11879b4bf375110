// First run: add a team with its API key, or try the local demo emulator.
import { useApp } from '../../store/react';
import { TeamForm } from './TeamForm';

export function Onboarding() {
  const startDemo = useApp((s) => s.startDemo);
  return (
    <section aria-labelledby="onboarding-title" className="card">
      <h2 id="onboarding-title">Welcome</h2>
      <p>Add your team to watch its agents' numbers, or try everything against a local demo service first.</p>
      <TeamForm
        extraActions={(busy, run) => (
          <button type="button" className="secondary" disabled={busy} onClick={() => run(startDemo)}>
            Try the demo emulator
          </button>
        )}
      />
    </section>
  );
}
