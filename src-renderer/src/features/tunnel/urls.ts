// Where an agent's deliveries go, in words, from tunnel.status: this receiver, the public URL now
// up, a public URL that was stopped (the service still posts there; it cannot be removed), somewhere
// else, or nowhere yet. And whether a team's service runs on this machine (the emulator), where
// "register this receiver" is one click.
import type { ExposureDTO, TeamDTO, TunnelAgentDTO } from '../../../../src-shared/contract';
import { isLoopbackHost } from '../../../../src-shared/url';

/** One empty list for selectors (a new [] on each read would re-render forever). */
export const NO_AGENTS: TunnelAgentDTO[] = [];

export type Pointing = 'receiver' | 'exposed' | 'dead-exposure' | 'elsewhere' | 'none';

export function pointingOf(a: TunnelAgentDTO, exposure: ExposureDTO | undefined): Pointing {
  const p = a.publicUrl;
  if (!p) return 'none';
  if (a.receiverUrl && p === a.receiverUrl) return 'receiver';
  if (a.exposedUrl && p === a.exposedUrl) return 'exposed';
  if (exposure?.url && exposure.state !== 'up' && p.startsWith(`${exposure.url}/`)) return 'dead-exposure';
  return 'elsewhere';
}

export const POINTING_WORDS: Record<Pointing, string> = {
  receiver: 'this receiver',
  exposed: 'the public URL',
  'dead-exposure': 'a stopped public URL — no longer answers',
  elsewhere: 'another address',
  none: 'not registered',
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
