// A fake AppServices for handler, IPC and host tests: in-memory, records calls.
import { vi, type Mock } from 'vitest';
import type { AppServices, AgentRecord, TeamClientPort } from '../../../src-main/app/services';
import { createEventHub } from '../../../src-main/app/events';
import { NotFound } from '../../../src-main/core/api/errors';
import type { AgentHealthDTO, AlertStatusDTO, AppSettingsDTO, AppSettingsPatchDTO, HealthHistoryEntryDTO, TeamDTO } from '../../../src-shared/contract';

export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

export type FakeClient = { [K in keyof TeamClientPort]: Mock<TeamClientPort[K]> };

export function fakeClient(): FakeClient {
  return {
    startPairing: vi.fn(async () => null),
    getSession: vi.fn(async () => ({
      connected: false,
      linked: false,
      state: 'pairing',
      needsScan: true,
      phone: null,
      qr: 'data:image/png;base64,AAAA',
    })),
    send: vi.fn(async (_agentId: string, req: { to: string }, _opts?: unknown) => ({ status: 'sent', messageId: 'm1', to: req.to })),
    checkContact: vi.fn(async (_a: string, phone: string) => ({ phone, exists: true, jid: `${phone}@s.whatsapp.net` })),
    updateSettings: vi.fn(async (_a: string, patch: object) => ({ groups: false, readReceipts: false, deliveryReceipts: false, ...patch })),
    setWebhook: vi.fn(async (_a: string, url: string) => ({ mode: 'passthrough', url, secret: 'whsec_TOPSECRET_value' })),
    sendBudget: vi.fn(() => ({ limit: 60, windowMs: 60_000, used: 3, queued: [] })),
    cancelQueued: vi.fn(() => true),
  } as never;
}

export function fakeServices() {
  const teams: TeamDTO[] = [];
  const agents: AgentRecord[] = [];
  const health: AgentHealthDTO[] = [];
  let status: AlertStatusDTO = { snoozedUntil: null, quietHours: { enabled: false, start: '22:00', end: '07:00' } };
  let settings: AppSettingsDTO = {
    installId: 'install-fake-0001',
    startAtLogin: false,
    notifications: true,
    pollIntervalSec: 15,
    escalateAfterMin: 5,
    tunnel: { port: 0, forwardTo: null },
    alertRules: { reconnectGraceSec: 0, realertMinutes: 15, flapCount: 3, flapWindowMinutes: 10 },
    alertWebhookUrl: null,
    theme: 'system',
  };
  const client = fakeClient();
  const events = createEventHub();
  const storedKeys = new Map<string, string>();

  const accounts = {
      listTeams: vi.fn(async () => teams.map((t) => ({ ...t, agentIds: agents.filter((a) => a.teamId === t.teamId).map((a) => a.agentId) }))),
      addTeam: vi.fn(async (input: { label: string; baseUrl: string; apiKey: string; agents: { agentId: string; label?: string }[] }) => {
        const teamId = `t${teams.length + 1}`;
        storedKeys.set(teamId, input.apiKey);
        const team: TeamDTO = { teamId, label: input.label, baseUrl: input.baseUrl, keyHint: `…${input.apiKey.slice(-4)}`, authError: false, agentIds: [] };
        teams.push(team);
        for (const a of input.agents) agents.push({ teamId, agentId: a.agentId, label: a.label ?? a.agentId });
        return { ...team, agentIds: input.agents.map((a) => a.agentId) };
      }),
      removeTeam: vi.fn(async (teamId: string) => {
        const i = teams.findIndex((t) => t.teamId === teamId);
        if (i < 0) throw new NotFound({ code: 'TEAM_NOT_FOUND', message: 'No such team.' });
        teams.splice(i, 1);
      }),
      listAgents: vi.fn(async (teamId?: string) => agents.filter((a) => teamId === undefined || a.teamId === teamId)),
      addAgent: vi.fn(async (teamId: string, a: { agentId: string; label?: string }) => {
        const rec = { teamId, agentId: a.agentId, label: a.label ?? a.agentId };
        agents.push(rec);
        return rec;
      }),
      removeAgent: vi.fn(async () => {}),
      settings: vi.fn(async () => settings),
      updateSettings: vi.fn(async (patch: AppSettingsPatchDTO) => (settings = { ...settings, ...patch })),
  };
  const svc = {
    accounts,
    monitor: {
      snapshot: vi.fn(() => health),
      incidents: vi.fn(() => []),
      acknowledge: vi.fn(),
      acknowledgeAll: vi.fn(() => 2),
      snooze: vi.fn((until: number | null) => {
        status = { ...status, snoozedUntil: until };
      }),
      status: vi.fn(() => status),
      setQuietHours: vi.fn((q: AlertStatusDTO['quietHours']) => {
        status = { ...status, quietHours: q };
      }),
      history: vi.fn(async (_teamId: string, _agentId: string): Promise<HealthHistoryEntryDTO[]> => []),
    },
    client: vi.fn(async (teamId: string) => {
      if (!teams.some((t) => t.teamId === teamId)) throw new NotFound({ code: 'TEAM_NOT_FOUND', message: 'No such team.' });
      return client;
    }),
    tunnel: {
      status: vi.fn(() => ({ running: false, listenUrl: null, forwardTo: null, agents: [], counts: { received: 0, verified: 0, rejected: 0, forwarded: 0, failed: 0 } })),
      registerSecret: vi.fn(async () => {}),
      deliveries: vi.fn(async () => []),
      delivery: vi.fn(async () => {
        throw new NotFound({ code: 'DELIVERY_NOT_FOUND', message: 'No such delivery.' });
      }),
      replay: vi.fn(async (id: string) => ({ deliveryId: id, at: NOW, target: 'http://127.0.0.1:3000/hook', status: 200, durationMs: 5 })),
      simulate: vi.fn(),
      export: vi.fn(async (id: string, format: 'curl' | 'fixture') => ({ format, filename: `${id}.sh`, content: 'curl …' })),
      media: vi.fn(async (_id: string) => ({ filename: 'photo.png', mimeType: 'image/png', bytes: 3, dataBase64: 'AQID' })),
    },
    chat: {
      startTurn: vi.fn(async () => ({ turnId: 'turn-1' })),
      stopTurn: vi.fn(() => true),
      transcript: vi.fn(async () => []),
    },
    diagnostics: vi.fn(async () => ({ filename: 'diag.json', content: '{}' })),
    startDemo: vi.fn(async () => {
      const team = await accounts.addTeam({ label: 'Demo', baseUrl: 'http://127.0.0.1:9', apiKey: 'demo-key-0000', agents: [{ agentId: 'demo-agent' }] });
      return { team, baseUrl: team.baseUrl };
    }),
    events,
    now: () => NOW,
  } satisfies AppServices;

  return { svc: svc as typeof svc & AppServices, client, health, teams, agents, storedKeys };
}
