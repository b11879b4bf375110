// One companion per data folder, every command its client: `serve --emulator` runs as a real process and owns
// the folder; `listen --forward-to`, `messages`, `monitor` and a second companion run beside it, and what they
// print is what the contract (the screens' API) answers — the same ids, the same incident and the same length.
import { mkdtemp, mkdir, rm, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, runBin, type Spawned } from '../helpers/spawn-cli';
import { startHttpSink, type HttpSink } from '../helpers/http-sink';
import { waitFor } from '../helpers/wait';
import { formatDuration } from '../../src-shared/duration';

interface Ready {
  pid: number;
  origin: string;
  url: string;
  socket: string;
  emulator: { controlUrl: string };
  demoTeam: { teamId: string };
}

function jsonLines(s: string): Array<Record<string, unknown>> {
  return s
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('one companion per data folder', () => {
  let dir: string;
  let configDir: string;
  let serve: Spawned;
  let ready: Ready;
  let sink: HttpSink;
  const spawned: Spawned[] = [];

  const call = async <T>(name: string, args: unknown = {}): Promise<T> => {
    const token = new URL(ready.url).hash.replace('#token=', '');
    const res = await fetch(`${ready.origin}/api/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(args),
    });
    const r = (await res.json()) as { ok: boolean; value: T; error?: unknown };
    if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
    return r.value;
  };
  const control = (p: string, body: unknown = {}) =>
    fetch(`${ready.emulator.controlUrl}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const cli = (args: string[]) => runBin([...args, '--config-dir', configDir]);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cc-one-'));
    configDir = path.join(dir, 'config');
    const rendererDir = path.join(dir, 'renderer');
    await mkdir(rendererDir);
    await writeFile(path.join(rendererDir, 'index.html'), '<!doctype html><title>test renderer</title>');
    sink = await startHttpSink();
    serve = spawnCli([
      'serve',
      '--emulator',
      '--json',
      '--port',
      '0',
      '--tunnel-port',
      '0',
      '--poll-sec',
      '1',
      '--fast-poll-sec',
      '1',
      '--renderer-dir',
      rendererDir,
      '--config-dir',
      configDir,
    ]);
    ready = (await serve.firstJsonLine(30_000)) as unknown as Ready;
  }, 40_000);

  afterAll(async () => {
    for (const s of [...spawned, serve]) {
      if (s && s.child.exitCode === null) {
        s.child.kill('SIGTERM');
        await s.exited;
      }
    }
    await sink?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the companion owns the folder: a 0600 socket in it, and a second companion is refused naming the first', async () => {
    expect(ready.socket).toBe(path.join(configDir, 'data', 'companion.sock'));
    expect((await stat(ready.socket)).mode & 0o777).toBe(0o600);
    const second = await cli(['up', '--json']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`is owned by channel-companion serve (process ${ready.pid}`);
  });

  it('listen --forward-to attaches to the running receiver: each delivery printed with the contract id and forwarded once', async () => {
    const listen = spawnCli(['listen', '--forward-to', sink.url, '--json', '--config-dir', configDir]);
    spawned.push(listen);
    const first = await listen.firstJsonLine(20_000);
    expect(first.event).toBe('ready');
    expect((first.companion as { pid: number }).pid).toBe(ready.pid);
    const second = spawnCli(['listen', '--forward-to', sink.url, '--json', '--config-dir', configDir]);
    spawned.push(second);
    await second.firstJsonLine(20_000);

    await waitFor(
      async () =>
        (await control('/agents/agent-connected/inbound', { from: '15550107777', text: 'hello one companion' })).ok,
      10_000,
      'inbound',
    );
    const forwarded = await waitFor(
      () => {
        const lines = jsonLines(listen.stdout());
        const d = lines.find((l) => l.event === 'delivery');
        const f = lines.find((l) => l.event === 'forward');
        return d && f
          ? { d: d.delivery as { id: string; verdict: string }, f: f.forward as { deliveryId: string; status: number } }
          : null;
      },
      20_000,
      'a delivery and its forward',
    );
    expect(forwarded.d.verdict).toBe('verified');
    expect(forwarded.f.deliveryId).toBe(forwarded.d.id);
    expect(forwarded.f.status).toBe(200);
    // Two listeners: the sink gets the delivery once from each, with the original signature.
    await waitFor(
      () => sink.requests.filter((r) => r.body.toString().includes('hello one companion')).length === 2,
      10_000,
      'two forwards',
    );
    // Each listener forwarded it once: one forward line each for the delivery.
    const forwardsOf = (l: Spawned) =>
      jsonLines(l.stdout()).filter(
        (x) => x.event === 'forward' && (x.forward as { deliveryId: string }).deliveryId === forwarded.d.id,
      ).length;
    await waitFor(() => forwardsOf(second) === 1, 10_000, 'the second listener’s forward');
    expect(forwardsOf(listen)).toBe(1);
    const got = sink.requests.filter((r) => r.body.toString().includes('hello one companion'));
    expect(got).toHaveLength(2);
    expect(got[0]!.headers['x-service-signature-v1']).toBeTruthy();

    // The same id in the contract (the screens) and in `deliveries list`.
    const listed = await call<Array<{ id: string }>>('tunnel.deliveries', { limit: 10 });
    expect(listed.map((d) => d.id)).toContain(forwarded.d.id);

    // messages: the contract's conversation, as the companion keeps it.
    const msgs = await cli(['messages', '--agent', 'agent-connected', '--json']);
    expect(msgs.code).toBe(0);
    const contacts = jsonLines(msgs.stdout);
    expect(contacts.map((c) => c.contact)).toContain('+15550107777');
    const viaContract = await call<{ contacts: Array<{ contact: string; unread: number }> }>('messages.contacts', {
      agentId: 'agent-connected',
    });
    const one = viaContract.contacts.find((c) => c.contact === '+15550107777')!;
    expect(contacts.find((c) => c.contact === '+15550107777')!.unread).toBe(one.unread);
  }, 60_000);

  it('monitor prints the companion’s own incident: the same id, start and length as the contract', async () => {
    type Inc = { id: string; agentId: string; kind: string; openedAt: number; durationMs: number | null };
    const json = spawnCli(['monitor', '--json', '--config-dir', configDir]);
    const human = spawnCli(['monitor', '--config-dir', configDir]);
    spawned.push(json, human);
    await waitFor(() => jsonLines(json.stdout()).some((l) => l.event === 'started'), 20_000, 'monitor started');
    const started = jsonLines(json.stdout()).find((l) => l.event === 'started')!;
    expect((started.companion as { pid: number }).pid).toBe(ready.pid);
    await waitFor(() => human.stdout().includes('watching'), 20_000, 'human monitor started');

    await waitFor(async () => (await control('/agents/agent-connected/drop', { seconds: 4 })).ok, 5000, 'drop');
    // The drop ends, then the incident closes once the agent has stayed connected a while.
    const resolved = await waitFor(
      () =>
        jsonLines(json.stdout())
          .filter((l) => l.event === 'alert')
          .map((l) => l.alert as { change: string; incident: Inc })
          .find((a) => a.change === 'resolved' && a.incident.agentId === 'agent-connected')?.incident,
      80_000,
      'the incident to close',
    );
    const hist = await call<Inc[]>('alerts.history', {});
    const same = hist.find((i) => i.id === resolved.id);
    expect(same).toBeDefined();
    expect(same!.openedAt).toBe(resolved.openedAt);
    expect(same!.durationMs).toBe(resolved.durationMs);
    expect(resolved.durationMs).toBeGreaterThan(0);
    // The human line prints the same one length, in the screens' words.
    const line = await waitFor(
      () =>
        human
          .stdout()
          .split('\n')
          .find((l) => l.includes('agent-connected') && l.includes('Resolved')),
      10_000,
      'the human line',
    );
    expect(line).toContain(formatDuration(resolved.durationMs!));
  }, 60_000);
});
