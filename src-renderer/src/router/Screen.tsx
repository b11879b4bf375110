// Route → screen. The agents list, an agent's page and the first-run form are on the first paint and
// load with the app; every other screen is a chunk of its own, loaded on its first visit (the app's
// "Loading…" meanwhile; should its chunk fail to load, a notice with a reload instead of a blank).
import { lazy, Suspense, type ComponentType } from 'react';
import { AgentList } from '../features/agents/AgentList';
import { AgentPage } from '../features/agents/AgentPage';
import { Onboarding } from '../features/onboarding/Onboarding';
import { TunnelScreen } from '../features/tunnel/TunnelScreen';
import { EmptyState } from '../components/EmptyState';
import { useApp } from '../store/react';
import { resolveAgent } from './resolve';
import type { Route } from './routes';

function ScreenNotLoaded() {
  return (
    <EmptyState title="This screen could not be loaded.">
      <p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload the app
        </button>
      </p>
    </EmptyState>
  );
}

/** A screen loaded on first use; ScreenNotLoaded when its chunk does not load. */
function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  return lazy<ComponentType<P>>(() =>
    load().then(
      (screen) => ({ default: screen }),
      () => ({ default: ScreenNotLoaded }),
    ),
  );
}

const ChatScreen = lazyScreen(() => import('../features/chat/ChatScreen').then((m) => m.ChatScreen));
const ConsoleScreen = lazyScreen(() => import('../features/console/ConsoleScreen').then((m) => m.ConsoleScreen));
const MessagesScreen = lazyScreen(() => import('../features/messages/MessagesScreen').then((m) => m.MessagesScreen));
const AlertsScreen = lazyScreen(() => import('../features/alerts/AlertsScreen').then((m) => m.AlertsScreen));
const PairingScreen = lazyScreen(() => import('../features/pairing/PairingScreen').then((m) => m.PairingScreen));
const AgentSettingsScreen = lazyScreen(() =>
  import('../features/settings/AgentSettingsScreen').then((m) => m.AgentSettingsScreen),
);
const SettingsScreen = lazyScreen(() => import('../features/settings/SettingsScreen').then((m) => m.SettingsScreen));

function ChatRoute({ agentId, teamId }: { agentId: string; teamId: string | null }) {
  const agent = useApp((s) => resolveAgent(s.agents, agentId, teamId));
  const team = teamId ?? agent?.teamId ?? null;
  if (!team)
    return (
      <EmptyState title={`No team found for agent ${agentId}.`}>
        <p>
          Open the chat from the agent's page in the <a href="#/">agents list</a>.
        </p>
      </EmptyState>
    );
  return <ChatScreen key={`${team}/${agentId}`} teamId={team} agentId={agentId} />;
}

export function Screen({ route }: { route: Route }) {
  // One boundary per screen: the screen left goes at once (not kept hidden while the next one loads).
  return (
    <Suspense key={route.name} fallback={<p aria-busy="true">Loading…</p>}>
      <RouteScreen route={route} />
    </Suspense>
  );
}

function RouteScreen({ route }: { route: Route }) {
  const hasTeams = useApp((s) => s.teams.length > 0);
  switch (route.name) {
    case 'home':
      return hasTeams ? <AgentList /> : <Onboarding />;
    case 'agent':
      return <AgentPage agentId={route.agentId} teamId={route.teamId} />;
    case 'pairing':
      return <PairingScreen key={`${route.teamId}/${route.agentId}`} agentId={route.agentId} teamId={route.teamId} />;
    case 'chat':
      return <ChatRoute agentId={route.agentId} teamId={route.teamId} />;
    case 'agent-settings':
      return <AgentSettingsScreen agentId={route.agentId} teamId={route.teamId} />;
    case 'console':
      return (
        <ConsoleScreen
          key={`${route.teamId ?? ''}/${route.agentId ?? ''}`}
          {...(route.teamId ? { teamId: route.teamId } : {})}
          {...(route.agentId ? { agentId: route.agentId } : {})}
        />
      );
    case 'messages':
      return <MessagesScreen teamId={route.teamId} agentId={route.agentId} contact={route.contact} />;
    case 'tunnel':
      return <TunnelScreen />;
    case 'alerts':
      return <AlertsScreen />;
    case 'settings':
      return <SettingsScreen />;
    default:
      return (
        <EmptyState title="This page does not exist.">
          <p>
            Go to the <a href="#/">agents list</a>.
          </p>
        </EmptyState>
      );
  }
}
