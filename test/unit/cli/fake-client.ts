// A ServiceClient double that records calls; methods answer from `answers` or throw what is set.
import type { ServiceClient, ServiceClientOptions } from '../../../src-main/core/api/service';

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
