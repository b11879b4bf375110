// A fake contract implementation for handler, IPC and host tests: teams kept in memory, every other
// request a recording vi.fn that fails until a test gives it a behaviour, and a real event emitter.
import { vi, type Mock } from 'vitest';
import type { Implementations } from '../../../src-main/app/handlers';
import { NotFound } from '../../../src-main/core/api/errors';
import { Emitter } from '../../../src-main/core/events';
import { REQUEST_NAMES, type AppSettingsDTO, type Events, type TeamDTO } from '../../../src-shared/contract';

export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

type FakeImplementations = { [K in keyof Implementations]: Mock<Implementations[K]> };

export function fakeContract() {
  const teams: TeamDTO[] = [];
  let settings: AppSettingsDTO = {
    installId: 'install-fake-0001',
    startAtLogin: false,
    notifications: true,
    pollIntervalSec: 15,
    fastPollIntervalSec: 2,
    escalateAfterMin: 5,
    tunnel: { port: 0, forwardTo: null },
    alertRules: {
      reconnectGraceSec: 0,
      repeatDropGraceSec: 60,
      realertMinutes: 15,
      flapCount: 3,
      flapWindowMinutes: 10,
    },
    alertWebhookUrl: null,
    alertmanagerUrl: null,
    metricsPort: null,
    theme: 'system',
    messageNotifications: {
      enabled: true,
      showText: true,
      quietHours: { enabled: false, start: '22:00', end: '07:00' },
      muted: [],
    },
  };
  const impl = Object.fromEntries(
    REQUEST_NAMES.map((name) => [
      name,
      vi.fn(async () => {
        throw new Error(`${name} has no fake behaviour in this test`);
      }),
    ]),
  ) as unknown as FakeImplementations;

  impl['teams.list'].mockImplementation(async () => teams.map((t) => ({ ...t })));
  impl['teams.add'].mockImplementation(async (input) => {
    const team: TeamDTO = {
      teamId: `t${teams.length + 1}`,
      label: input.label,
      baseUrl: input.baseUrl,
      keyHint: `…${input.apiKey.slice(-4)}`,
      keyRejected: false,
      agentIds: input.agents.map((a) => a.agentId),
      ...(input.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
    };
    teams.push(team);
    return { ...team };
  });
  impl['teams.remove'].mockImplementation(async ({ teamId }) => {
    const i = teams.findIndex((t) => t.teamId === teamId);
    if (i < 0) throw new NotFound({ code: 'TEAM_NOT_FOUND', message: 'No such team.' });
    teams.splice(i, 1);
    return null;
  });
  impl['agents.remove'].mockImplementation(async () => null);
  impl['settings.get'].mockImplementation(async () => settings);
  impl['settings.update'].mockImplementation(
    async ({ patch }) =>
      (settings = {
        ...settings,
        ...patch,
        messageNotifications: { ...settings.messageNotifications, ...patch.messageNotifications },
      }),
  );
  impl['messages.unread'].mockImplementation(async () => ({ total: 0, agents: [] }));

  return { impl, events: new Emitter<Events>(), teams };
}
