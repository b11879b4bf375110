// How what is known of an agent's registration is shown (the words come from tunnel.status), and
// whether a team's service runs on this machine (the emulator), where "register this receiver" is
// one click.
import type { HubConnectionDTO, RegistrationStatusDTO, TeamDTO, TunnelAgentDTO } from '../../../../src-shared/contract';
import { isLoopbackHost } from '../../../../src-shared/url';

/** One empty list for selectors (a new [] on each read would re-render forever). */
export const NO_AGENTS: TunnelAgentDTO[] = [];

/** How each state of what is known of an agent's registration is shown (registration-status.ts words it). */
export const REGISTRATION_TONE: Record<RegistrationStatusDTO['state'], string | undefined> = {
  here: undefined,
  stale: 'error',
  elsewhere: 'muted',
  unknown: 'muted',
};

/** A service on loopback (the emulator, a local stand-in) can reach the receiver directly. */
export function serviceOnThisMachine(team: TeamDTO | undefined): boolean {
  if (!team) return false;
  try {
    return isLoopbackHost(new URL(team.baseUrl).hostname);
  } catch {
    return false;
  }
}

/** An agent's hook URL at a team hub (`<public-url>/hooks/<agent>`), or null when the hub has no public URL. */
export function hubHookUrl(hub: HubConnectionDTO, agentId: string): string | null {
  return hub.publicUrl === null ? null : `${hub.publicUrl.replace(/\/+$/, '')}/hooks/${encodeURIComponent(agentId)}`;
}
