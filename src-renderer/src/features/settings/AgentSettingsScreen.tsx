// An agent's channel switches (groups, read receipts, delivery receipts). The service has no read
// for them, so each reads "unknown until changed here" (the agent may have been set up elsewhere)
// until one is changed here, and then all show exactly what the service's reply says.
import type { AgentDTO, ChannelSettingsDTO } from '../../../../src-shared/contract';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Switch } from '../../components/Switch';
import { agentHref } from '../../router/routes';
import { resolveAgent } from '../../router/resolve';
import { agentKey } from '../../store/env';
import { useApp } from '../../store/react';

const SWITCHES: { key: keyof ChannelSettingsDTO; label: string; hint: string }[] = [
  { key: 'groups', label: 'Answer in groups', hint: 'Let the agent read and answer group chats.' },
  {
    key: 'readReceipts',
    label: 'Send read receipts',
    hint: 'Contacts see blue ticks when the agent has read a message.',
  },
  {
    key: 'deliveryReceipts',
    label: 'Deliver receipt events',
    hint: 'Receive delivery status events for sent messages.',
  },
];

function ChannelSwitches({ agent }: { agent: AgentDTO }) {
  const view = useApp((s) => s.channel[agentKey(agent.teamId, agent.agentId)]);
  const update = useApp((s) => s.updateChannel);
  const value = view?.value ?? null;
  return (
    <section className="card" aria-labelledby="channel-title" aria-busy={view?.pending ?? false}>
      <h3 id="channel-title">Channel switches</h3>
      {SWITCHES.map((sw) => (
        <Switch
          key={sw.key}
          request="channel.updateSettings"
          label={sw.label}
          hint={sw.hint}
          checked={value?.[sw.key] ?? false}
          {...(value === null ? { unknown: 'unknown until changed here' } : {})}
          disabled={view?.pending}
          onChange={(v) => void update(agent.teamId, agent.agentId, { [sw.key]: v })}
        />
      ))}
      {view?.pending && <p aria-busy="true">Saving…</p>}
      {view?.error && <ErrorNotice error={view.error} />}
      <p className="muted" role="status">
        {view?.value
          ? `The service now reports: groups ${view.value.groups ? 'on' : 'off'}, read receipts ${view.value.readReceipts ? 'on' : 'off'}, delivery receipts ${view.value.deliveryReceipts ? 'on' : 'off'}.`
          : 'The service has no way to read these: each is unknown until it is changed here (it may have been set elsewhere).'}
      </p>
    </section>
  );
}

export function AgentSettingsScreen({ agentId, teamId }: { agentId: string; teamId: string | null }) {
  const agent = useApp((s) => resolveAgent(s.agents, agentId, teamId));
  return (
    <section aria-labelledby="agent-settings-title">
      <p>
        <a href={agentHref(teamId, agentId)}>← Back to the agent</a>
      </p>
      <h2 id="agent-settings-title">Settings for {agent?.label ?? agentId}</h2>
      {agent ? <ChannelSwitches agent={agent} /> : <EmptyState title="This agent is not in any of your teams." />}
    </section>
  );
}
