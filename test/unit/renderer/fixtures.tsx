// Shared fixtures for the renderer tests: DTO builders, the store on a fake Api, and mounting.
import { act, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import type { AgentDTO, AppSettingsDTO, Health, IncidentDTO, SessionDTO, TeamDTO } from '../../../src-shared/contract';
import { createAppStore, type AppStore } from '../../../src-renderer/src/store';
import type { StoreEnv } from '../../../src-renderer/src/store/env';
import { afterNextPaint } from '../../../src-renderer/src/store/frame-batch';
import { StoreContext } from '../../../src-renderer/src/store/react';
import { fakeApi } from './fake-api';

export const team = (over: Partial<TeamDTO> = {}): TeamDTO => ({
  teamId: 't1',
  label: 'Ops',
  baseUrl: 'https://api.example.test',
  keyHint: '…9f2c',
  keyRejected: false,
  agentIds: ['a1'],
  ...over,
});

export const agent = (
  agentId: string,
  health: Health,
  over: Partial<AgentDTO['health']> = {},
  teamId = 't1',
): AgentDTO => ({
  teamId,
  agentId,
  label: `Agent ${agentId}`,
  health: {
    teamId,
    agentId,
    health,
    state: null,
    phone: null,
    needsScan: health === 'needs-scan',
    since: 0,
    checkedAt: null,
    ...over,
  },
  watchClosely: false,
  labels: [],
});

export const appSettings = (over: Partial<AppSettingsDTO> = {}): AppSettingsDTO => ({
  installId: 'install-test-1',
  alertRules: { reconnectGraceSec: 0, repeatDropGraceSec: 60, realertMinutes: 15, flapCount: 3, flapWindowMinutes: 10 },
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
  startAtLogin: false,
  notifications: true,
  pollIntervalSec: 30,
  fastPollIntervalSec: 2,
  escalateAfterMin: 10,
  tunnel: { port: 0, forwardTo: null },
  ...over,
});

export const incident = (id: string, over: Partial<IncidentDTO> = {}): IncidentDTO => ({
  id,
  teamId: 't1',
  agentId: 'a1',
  kind: 'needs-scan',
  severity: 'urgent',
  title: 'Needs a QR scan',
  message: 'Scan the QR code with the phone.',
  openedAt: 1000,
  acknowledgedAt: null,
  resolvedAt: null,
  endedAt: null,
  durationMs: null,
  ...over,
});

export const session = (over: Partial<SessionDTO> = {}): SessionDTO => ({
  teamId: 't1',
  agentId: 'a1',
  connected: false,
  linked: false,
  state: 'unlinked',
  needsScan: true,
  phone: null,
  qr: null,
  ...over,
});

/** A tiny valid-looking PNG data URL (the QR image is only displayed). */
export const PNG = (n: number) => `data:image/png;base64,iVBORw0KGgo${'A'.repeat(n)}=`;

/** A store on a fake Api; its clock reads now.t, `env` replaces the rest (e.g. a manual frame clock). */
export function setup(answers: Parameters<typeof fakeApi>[0] = {}, now = { t: 100_000 }, env: Partial<StoreEnv> = {}) {
  const fake = fakeApi(answers);
  const store = createAppStore(fake.api, { now: () => now.t, ...env });
  return { ...fake, store, now };
}

export function mount(store: AppStore, ui: ReactNode) {
  return render(<StoreContext.Provider value={store}>{ui}</StoreContext.Provider>);
}

export const flush = () => act(() => new Promise((r) => setTimeout(r, 0)));

/** Once what waits for the next paint (store/frame-batch's afterNextPaint) has run, and what it rendered. */
export const afterPaint = () => act(() => new Promise<void>((r) => afterNextPaint(r)));
