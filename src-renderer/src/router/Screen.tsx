// Route → screen.
import { ChatScreen } from '../features/chat/ChatScreen';
import { ConsoleScreen } from '../features/console/ConsoleScreen';
import { MessagesScreen } from '../features/messages/MessagesScreen';
import { TunnelScreen } from '../features/tunnel/TunnelScreen';
import { AgentList } from '../features/agents/AgentList';
import { AgentPage } from '../features/agents/AgentPage';
import { AlertsScreen } from '../features/alerts/AlertsScreen';
import { Onboarding } from '../features/onboarding/Onboarding';
import { PairingScreen } from '../features/pairing/PairingScreen';
import { AgentSettingsScreen } from '../features/settings/AgentSettingsScreen';
import { SettingsScreen } from '../features/settings/SettingsScreen';
import { EmptyState } from '../components/EmptyState';
import { useApp } from '../store/react';
import { resolveAgent } from './resolve';
import type { Route } from './routes';

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
