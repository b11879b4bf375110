// A ServiceClient double that records calls; methods answer from `answers` or throw what is set.
import type { ServiceClient, ServiceClientOptions } from '../../../src-main/core/api/service';
import type { SecretStore } from '../../../src-main/core/secrets';
import { TeamStore } from '../../../src-main/core/teams';

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
