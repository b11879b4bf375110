// A ServiceClient double that records calls; methods answer from `answers` or throw what is set. Teams saved
// straight into a config folder, and a config folder of each test's own holding them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { ServiceClient, ServiceClientOptions } from '../../../src-main/core/api/service';
import { MemorySecretStore, type SecretStore } from '../../../src-main/core/secrets';
import { TeamStore } from '../../../src-main/core/teams';

/** The session the service answers for a connected agent. */
export const CONNECTED = {
  state: 'connected',
  connected: true,
  linked: true,
  needsScan: false,
  phone: '15550100001',
  qr: null,
};

export interface FakeClientLog {
  created: ServiceClientOptions[];
  calls: Array<{ method: string; args: unknown[] }>;
  closed: number;
}

export function fakeClientFactory(answers: Partial<Record<keyof ServiceClient, (...args: unknown[]) => unknown>> = {}) {
  const log: FakeClientLog = { created: [], calls: [], closed: 0 };
  const factory = (opts: ServiceClientOptions): ServiceClient => {
    log.created.push(opts);
    const handler: ProxyHandler<object> = {
      get(_t, prop: string) {
        if (prop === 'close') return async () => void log.closed++;
        if (prop === 'baseUrl') return opts.baseUrl;
        if (prop === 'rateLimit') return {};
        if (prop === 'then') return undefined;
        return (...args: unknown[]) => {
          log.calls.push({ method: prop, args });
          const a = answers[prop as keyof ServiceClient];
          if (!a) throw new Error(`fake client: no answer for ${prop}`);
          return a(...args);
        };
      },
    };
    return new Proxy({}, handler) as ServiceClient;
  };
  return { factory, log };
}

/**
 * Saves a team straight into the config folder and the secret store (its agents checked by a fake client), as
 * if added earlier: the commands under test then find it through the companion.
 */
export async function saveTeam(
  configDir: string,
  secrets: SecretStore,
  o: { label?: string; agents?: string[]; apiKey: string; baseUrl?: string },
): Promise<string> {
  const { factory } = fakeClientFactory({
    getSession: async () => ({
      state: 'connected',
      connected: true,
      linked: true,
      needsScan: false,
      phone: null,
      qr: null,
    }),
  });
  const teams = await TeamStore.open({ configDir, secrets, clientFactory: factory });
  try {
    const t = await teams.addTeam({
      label: o.label ?? 'Demo',
      baseUrl: o.baseUrl ?? 'http://127.0.0.1:9',
      apiKey: o.apiKey,
      agents: (o.agents ?? ['a1', 'a2']).map((agentId) => ({ agentId })),
    });
    return t.id;
  } finally {
    await teams.close();
  }
}

/**
 * Registers, in the calling file or describe block, a config folder (`<prefix>…` in the temp folder) and a
 * MemorySecretStore of each test's own, holding these teams (see saveTeam); the folder is removed after the test.
 */
export function useSavedTeams(
  prefix: string,
  teams: Parameters<typeof saveTeam>[2][],
): { readonly dir: string; readonly store: MemorySecretStore } {
  let dir: string | undefined;
  let store: MemorySecretStore | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    store = new MemorySecretStore();
    for (const t of teams) await saveTeam(dir, store, t);
  });
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      if (dir === undefined) throw new Error('no config folder outside a test');
      return dir;
    },
    get store() {
      if (store === undefined) throw new Error('no secret store outside a test');
      return store;
    },
  };
}
