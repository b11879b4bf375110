// TODO(lead): replace with the real AppServices over the core (accounts + keychain, monitor, one
// ServiceClient per team, tunnel, chat, diagnostics, emulator demo). Until then the shell starts,
// shows no agents, and every request that needs the core answers a clear 'internal' NOT_WIRED error.
import { AppError } from './errors';
import { createEventHub } from './events';
import type { AppSettingsDTO } from '../../src-preload/contract';
import type { AppServices } from './services';

const notWired = (what: string) => () => {
  throw new AppError('internal', 'NOT_WIRED', `${what} is not wired to the core yet.`);
};

export function createUnwiredServices(now: () => number = Date.now): AppServices {
  let snoozedUntil: number | null = null;
  let quietHours = { enabled: false, start: '22:00', end: '07:00' };
  let settings: AppSettingsDTO = {
    installId: 'unwired-install',
    startAtLogin: false,
    notifications: true,
    pollIntervalSec: 15,
    escalateAfterMin: 5,
    tunnel: { port: 0, forwardTo: null },
    alertRules: { reconnectGraceSec: 0, realertMinutes: 15, flapCount: 3, flapWindowMinutes: 10 },
    alertWebhookUrl: null,
    theme: 'system',
  };
  return {
    accounts: {
      listTeams: async () => [],
      addTeam: async () => notWired('Adding a team')(),
      removeTeam: async () => notWired('Removing a team')(),
      listAgents: async () => [],
      addAgent: async () => notWired('Adding an agent')(),
      removeAgent: async () => notWired('Removing an agent')(),
      settings: async () => settings,
      updateSettings: async (patch) => (settings = { ...settings, ...patch, tunnel: { ...settings.tunnel, ...patch.tunnel } }),
    },
    monitor: {
      snapshot: () => [],
      incidents: () => [],
      acknowledge: () => undefined,
      acknowledgeAll: () => 0,
      snooze: (until) => {
        snoozedUntil = until;
      },
      status: () => ({ snoozedUntil, quietHours }),
      setQuietHours: (q) => {
        quietHours = q;
      },
      history: async () => [],
    },
    client: async () => notWired('The service client')(),
    tunnel: {
      status: () => ({ running: false, listenUrl: null, forwardTo: null, agents: [], counts: { received: 0, verified: 0, rejected: 0, forwarded: 0, failed: 0 } }),
      registerSecret: async () => notWired('The tunnel')(),
      deliveries: async () => [],
      delivery: async () => notWired('The tunnel')(),
      replay: async () => notWired('Replay')(),
      simulate: async () => notWired('Simulate')(),
      export: async () => notWired('Export')(),
      media: async () => notWired('Media download')(),
    },
    chat: {
      startTurn: async () => notWired('Chat')(),
      stopTurn: () => false,
      transcript: async () => [],
    },
    diagnostics: async () => notWired('Diagnostics')(),
    startDemo: async () => notWired('The demo emulator')(),
    events: createEventHub(),
    now,
  };
}
