// A fake ServiceClient with only what TeamStore uses: getSession and close.
import { vi } from 'vitest';
import { NotFound, KeyRejected } from '../../../../src-main/core/api/errors';
import type { ServiceClient } from '../../../../src-main/core/api/service';
import type { SessionStatus } from '../../../../src-main/core/api/types';

export interface FakeService {
  /** Valid keys and the agents each may see. */
  keys: Map<string, Set<string>>;
  created: Array<{ baseUrl: string; apiKey: string; allowInsecureHttp?: boolean; client: FakeClient }>;
  factory: (o: { baseUrl: string; apiKey: string; allowInsecureHttp?: boolean }) => ServiceClient;
}

export interface FakeClient {
  baseUrl: string;
  getSession: ReturnType<typeof vi.fn>;
  close: ReturnType<typeof vi.fn>;
}

const status: SessionStatus = {
  connected: true,
  linked: true,
  state: 'connected',
  needsScan: false,
  phone: '15550001111',
  qr: null,
};

export function fakeService(keys: Record<string, string[]>): FakeService {
  const svc: FakeService = {
    keys: new Map(Object.entries(keys).map(([k, v]) => [k, new Set(v)])),
    created: [],
    factory: ({ baseUrl, apiKey, allowInsecureHttp }) => {
      const client: FakeClient = {
        baseUrl,
        getSession: vi.fn(async (agentId: string) => {
          const agents = svc.keys.get(apiKey);
          if (!agents) throw new KeyRejected();
          if (!agents.has(agentId)) throw new NotFound();
          return status;
        }),
        close: vi.fn(async () => undefined),
      };
      svc.created.push({ baseUrl, apiKey, ...(allowInsecureHttp ? { allowInsecureHttp } : {}), client });
      return client as unknown as ServiceClient;
    },
  };
  return svc;
}
