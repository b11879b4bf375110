import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  exposeAndRegister,
  registerAgentWebhook,
  registerDemoHooks,
  registerHooksAt,
  type HookRegistration,
  type HookTarget,
} from '../../../../src-main/app/usecases/webhooks';
import type { ExposureStatus } from '../../../../src-main/core/expose';
import { RegistrationHistory } from '../../../../src-main/core/tunnel/registration-history';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-webhooks-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The service: one webhook URL and one secret per agent, set when a PUT is taken; each answer
 * arrives after the delay its URL is given (a slow network, a slow app).
 */
function slowService(delayOf: (url: string) => number) {
  const service = { url: '', secret: '', taken: 0 };
  return {
    service,
    async setWebhook(_agentId: string, url: string) {
      service.taken++;
      const secret = `whsec_${String(service.taken).padStart(4, '0')}0123456789abcdef0123456789abcd`;
      service.url = url;
      service.secret = secret;
      await sleep(delayOf(url));
      return { mode: 'passthrough' as const, url, secret };
    },
  };
}

const SECRET = 'whsec_0123456789abcdef0123456789abcdef';
const targets: HookTarget[] = [
  { teamId: 't1', agentId: 'a1' },
  { teamId: 't1', agentId: 'a 2' },
  { teamId: 't1', agentId: 'a3' },
];

function fakeClient(secret = SECRET) {
  const calls: Array<[string, string]> = [];
  return {
    calls,
    async setWebhook(agentId: string, url: string) {
      calls.push([agentId, url]);
      return { mode: 'passthrough' as const, url, secret };
    },
  };
}

describe('registerAgentWebhook', () => {
  it('keeps the secret before answering, and answers the registration with a hint of it only', async () => {
    const client = fakeClient();
    const kept: string[] = [];
    const r = await registerAgentWebhook({
      client,
      agentId: 'a1',
      url: 'https://x.example/hooks/a1',
      history: null,
      keepSecret: async (s) => void kept.push(s),
    });
    expect(kept).toEqual([SECRET]);
    expect(r).toEqual({
      registration: { mode: 'passthrough', url: 'https://x.example/hooks/a1' },
      secretHint: '…cdef',
      historyProblem: null,
    });
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });

  it('a secret that cannot be used fails the registration and is kept nowhere', async () => {
    const kept: string[] = [];
    await expect(
      registerAgentWebhook({
        client: fakeClient(''),
        agentId: 'a1',
        url: 'https://x.example/hooks/a1',
        history: null,
        keepSecret: async (s) => void kept.push(s),
      }),
    ).rejects.toThrow(/no usable signing secret/);
    expect(kept).toEqual([]);
  });
});

describe('registerAgentWebhook: one registration of an agent at a time', () => {
  it("two at once (the first answered late): the secret kept and the newest history entry are the service's last", async () => {
    const dir = await dataDir();
    const client = slowService((url) => (url.endsWith('/a') ? 300 : 10));
    let kept = '';
    // Two commands on one data folder, each with its own view of the history.
    const run = (url: string) =>
      registerAgentWebhook({
        client,
        agentId: 'a1',
        url,
        history: { store: RegistrationHistory.in(dir), teamId: 't1', source: 'webhook set', target: 'other' },
        keepSecret: async (s) => void (kept = s),
      });
    const a = run('https://one.example/a');
    await sleep(20);
    const b = run('https://two.example/b');
    await Promise.all([a, b]);
    expect(client.service.url).toBe('https://two.example/b');
    expect(kept).toBe(client.service.secret);
    const { entries } = await RegistrationHistory.in(dir).list('t1', 'a1');
    expect(entries.map((e) => e.url)).toEqual(['https://two.example/b', 'https://one.example/a']);
  });

  it("waits while another process holds the agent's registration lock on the data folder, then goes on", async () => {
    const dir = await dataDir();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    cleanups.push(async () => void other.kill());
    await writeFile(
      // The agent's registration lock file in the data folder.
      join(dir, 'webhook-registering-a1.lock'),
      `${JSON.stringify({ pid: other.pid, host: hostname(), since: Date.now() })}\n`,
    );
    const client = fakeClient();
    const done = registerAgentWebhook({
      client,
      agentId: 'a1',
      url: 'https://x.example/hooks/a1',
      history: { store: RegistrationHistory.in(dir), teamId: 't1', source: 'webhook set', target: 'other' },
      keepSecret: async () => undefined,
    });
    await sleep(100);
    expect(client.calls).toEqual([]);
    other.kill();
    await done;
    expect(client.calls).toEqual([['a1', 'https://x.example/hooks/a1']]);
    // The lock is given back: the next registration does not wait.
    await registerAgentWebhook({
      client,
      agentId: 'a1',
      url: 'https://y.example/hooks/a1',
      history: { store: RegistrationHistory.in(dir), teamId: 't1', source: 'webhook set', target: 'other' },
      keepSecret: async () => undefined,
    });
    expect(client.calls).toHaveLength(2);
  });

  it('answers and keeps the URL redacted: no user, password, query value or token in the path; the agent id stays', async () => {
    const dir = await dataDir();
    const agent = 'agent-sales-eu-west-1';
    const url = `https://user:pw@app.example/in/tok_5f1c9a0e7b3d2c4a/hooks/${agent}?token=SECRET`;
    const client = fakeClient();
    const kept: string[] = [];
    const r = await registerAgentWebhook({
      client,
      agentId: agent,
      url,
      history: { store: RegistrationHistory.in(dir), teamId: 't1', source: 'webhook set', target: 'other' },
      keepSecret: async (_s, registered) => void kept.push(registered.url),
    });
    // The service is given the URL as it is.
    expect(client.calls).toEqual([[agent, url]]);
    const shown = `https://***@app.example/in/…/hooks/${agent}?token=…`;
    expect(r.registration.url).toBe(shown);
    expect(kept).toEqual([shown]);
    const file = await readFile(join(dir, 'webhook-registrations.json'), 'utf8');
    for (const secret of ['pw@', 'SECRET', 'tok_5f1c']) {
      expect(JSON.stringify(r)).not.toContain(secret);
      expect(file).not.toContain(secret);
    }
  });
});

describe('registerHooksAt', () => {
  const ok = async (_t: HookTarget, url: string) => ({ url });

  it('each agent at <base>/hooks/<agent>, one after another, every change reported', async () => {
    const seen: HookRegistration[][] = [];
    const order: string[] = [];
    const list = await registerHooksAt('https://pub.example/', targets, {
      register: async (t, url) => {
        order.push(t.agentId);
        return { url };
      },
      onChange: (l) => seen.push(l),
    });
    expect(order).toEqual(['a1', 'a 2', 'a3']);
    expect(list.map((r) => [r.url, r.state])).toEqual([
      ['https://pub.example/hooks/a1', 'registered'],
      ['https://pub.example/hooks/a%202', 'registered'],
      ['https://pub.example/hooks/a3', 'registered'],
    ]);
    expect(seen[0]!.map((r) => r.state)).toEqual(['registering', 'registering', 'registering']);
    expect(seen.at(-1)).toEqual(list);
  });

  it('by default a failure is noted and the next agent still registered; with stopOnFailure it ends the run', async () => {
    const failing = async (t: HookTarget, url: string) => {
      if (t.agentId === 'a 2') throw new Error('key rejected');
      return { url };
    };
    const list = await registerHooksAt('https://pub.example', targets, { register: failing });
    expect(list.map((r) => [r.state, r.error])).toEqual([
      ['registered', null],
      ['failed', 'key rejected'],
      ['registered', null],
    ]);
    const tried: string[] = [];
    await expect(
      registerHooksAt('https://pub.example', targets, {
        register: async (t, url) => {
          tried.push(t.agentId);
          return failing(t, url);
        },
        stopOnFailure: true,
      }),
    ).rejects.toThrow('key rejected');
    expect(tried).toEqual(['a1', 'a 2']);
  });

  it('stops when it is no longer wanted', async () => {
    let n = 0;
    const list = await registerHooksAt('https://pub.example', targets, { register: ok, stillWanted: () => n++ < 1 });
    expect(list.map((r) => r.state)).toEqual(['registered', 'registering', 'registering']);
  });
});

describe('exposeAndRegister', () => {
  function controller(result: Partial<ExposureStatus>) {
    let status = { state: 'starting', kind: 'command', url: null, since: 0, error: null, ...result } as ExposureStatus;
    return {
      set: (s: Partial<ExposureStatus>) => (status = { ...status, ...s }),
      status: () => status,
      start: async () => status,
    };
  }

  it('once the public URL is up: says so, then registers the agents there', async () => {
    const c = controller({ state: 'up', url: 'https://pub.example' });
    const events: string[] = [];
    const r = await exposeAndRegister({
      controller: c,
      port: 4000,
      request: { kind: 'command', command: 'x {port}' },
      targets: targets.slice(0, 1),
      onUp: (url) => events.push(`up ${url}`),
      register: async (t, url) => {
        events.push(`register ${t.agentId} ${url}`);
        return { url };
      },
    });
    expect(events).toEqual(['up https://pub.example', 'register a1 https://pub.example/hooks/a1']);
    expect(r.registrations.map((x) => x.state)).toEqual(['registered']);
  });

  it('an exposure that failed registers nothing; one stopped meanwhile registers no further agent', async () => {
    const failed = await exposeAndRegister({
      controller: controller({ state: 'failed' }),
      port: 1,
      request: { kind: 'ngrok' },
      targets,
      register: async (_t, url) => ({ url }),
    });
    expect(failed.registrations).toEqual([]);
    const c = controller({ state: 'up', url: 'https://pub.example' });
    const r = await exposeAndRegister({
      controller: c,
      port: 1,
      request: { kind: 'ngrok' },
      targets,
      register: async (_t, url) => {
        c.set({ state: 'stopped' });
        return { url };
      },
    });
    expect(r.registrations.map((x) => x.state)).toEqual(['registered', 'registering', 'registering']);
  });
});

describe('registerDemoHooks', () => {
  const receiver = 'http://127.0.0.1:4100';
  const agents = ['agent-connected', 'agent-unlinked', 'agent-flaky'];
  const hook = (a: string) => `${receiver}/hooks/${a}`;

  it('registers every agent at its hook URL when the emulator reports no webhook', async () => {
    const registered: Array<[string, string]> = [];
    const out = await registerDemoHooks({
      receiver,
      agentIds: agents,
      current: new Map(),
      ours: async () => [],
      register: async (a, url) => void registered.push([a, url]),
    });
    expect(registered).toEqual(agents.map((a) => [a, hook(a)]));
    expect(out.map((o) => o.state)).toEqual(['registered', 'registered', 'registered']);
  });

  it('leaves a URL this install did not set alone, and replaces one it set (its hook or its history)', async () => {
    const registered: string[] = [];
    const out = await registerDemoHooks({
      receiver,
      agentIds: agents,
      current: new Map([
        ['agent-connected', 'https://team.example/prod-hook'],
        ['agent-unlinked', hook('agent-unlinked')],
        ['agent-flaky', 'http://127.0.0.1:4000/hooks/agent-flaky'],
      ]),
      ours: async (a) => (a === 'agent-flaky' ? ['http://127.0.0.1:4000/hooks/agent-flaky'] : []),
      register: async (a) => void registered.push(a),
    });
    expect(registered).toEqual(['agent-unlinked', 'agent-flaky']);
    expect(out[0]).toEqual({ agentId: 'agent-connected', state: 'foreign', url: 'https://team.example/prod-hook' });
  });

  it('a failed registration is reported and the next agent is still registered', async () => {
    const registered: string[] = [];
    const out = await registerDemoHooks({
      receiver,
      agentIds: ['a1', 'a2'],
      current: new Map(),
      ours: async () => [],
      register: async (a) => {
        if (a === 'a1') throw new Error('agent not found');
        registered.push(a);
      },
    });
    expect(out[0]).toEqual({ agentId: 'a1', state: 'failed', url: hook('a1'), error: 'agent not found' });
    expect(registered).toEqual(['a2']);
  });
});
