import { useApp } from './store/react';
import { Onboarding } from './features/onboarding/Onboarding';
import { AgentList } from './features/agents/AgentList';

export function App() {
  const loaded = useApp((s) => s.loaded);
  const hasTeams = useApp((s) => s.teams.length > 0);
  const lastError = useApp((s) => s.lastError);
  const clearError = useApp((s) => s.clearError);
  return (
    <div className="app">
      <header className="app-header">
        <h1>Channel Companion</h1>
      </header>
      <main id="main" tabIndex={-1}>
        {lastError && (
          <div role="alert" className="banner banner-error">
            <span>{lastError.message}</span>
            <button type="button" onClick={clearError}>
              Dismiss
            </button>
          </div>
        )}
        {!loaded ? <p aria-busy="true">Loading…</p> : hasTeams ? <AgentList /> : <Onboarding />}
      </main>
    </div>
  );
}
