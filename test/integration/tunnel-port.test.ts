// The receiver's fixed port: a fresh install listens on the default one; a chosen port is kept
// across a restart of the app; a port held by another process fails with who holds it (a plain
// program, or another Channel Companion) and a free port to use instead, which the app then
// listens on once saved; `listen` names the holder and the flag to use.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RequestName, Result, TunnelStatusDTO } from '../../src-shared/contract';
import { DEFAULT_TUNNEL_PORT } from '../../src-shared/limits';
import { createCompanion, type Companion } from '../../src-main/app/companion/companion';
import { createHandlers } from '../../src-main/app/handlers';
import { implementContract } from '../../src-main/app/contract';
import { TunnelHost, type PortTaken } from '../../src-main/app/companion/tunnel-host';
import { freePortNear } from '../../src-main/core/port-owner';
import { silentLogger, systemClock } from '../../src-main/core/ports';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { runBin, spawnCli } from '../helpers/spawn-cli';
import { waitFor } from '../helpers/wait';

/** A plain server in another process, holding a free loopback port. */
async function holdPort(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ['-e', "require('http').createServer().listen(0, '127.0.0.1', function () { console.log(this.address().port) })"],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').once('data', (line: string) => resolve(Number(line.trim())));
    child.once('exit', () => reject(new Error('the port holder exited')));
  });
  return { child, port };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('the tunnel port', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  const companions: Companion[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cc-tunnel-port-'));
  });
  afterEach(async () => {
    await Promise.all(companions.splice(0).map((c) => c.close()));
    await Promise.all(children.splice(0).map(stop));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const host = (name: string) =>
    new TunnelHost({
      dataDir: path.join(dir, name),
      getSecrets: async () => [],
      clock: systemClock,
      logger: silentLogger,
      onDelivery() {},
      onForward() {},
      onRefused() {},
    });

  it('held by a plain program: the error names it and offers a free port, which then works', async () => {
    const held = await holdPort();
    children.push(held.child);
    const h = host('plain');
    try {
      await h.setPort(held.port);
      await h.open();
      const err = await h.start().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ name: 'PortTakenError' });
      const taken = (err as { taken: PortTaken }).taken;
      expect(taken.port).toBe(held.port);
      expect(taken.owner).toBe(
        process.platform === 'linux' ? `another program (node, process ${held.child.pid})` : 'another program',
      );
      expect(taken.alternative).not.toBeNull();
      expect(taken.alternative).not.toBe(held.port);
      expect((err as Error).message).toContain(`port ${held.port} is taken by ${taken.owner}`);
      expect((err as Error).message).toContain(`use port ${taken.alternative} instead`);
      expect(h.portTaken).toEqual(taken);
      // The offer taken: the receiver starts on the new port at once, and the problem is gone.
      await h.setPort(taken.alternative!);
      expect(h.url).toBe(`http://127.0.0.1:${taken.alternative}`);
      expect(h.portTaken).toBeNull();
    } finally {
      await h.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'held by another Channel Companion (`listen`): the error says so, with its process',
    async () => {
      const port = await freePortNear(40_000 + (process.pid % 5_000), '127.0.0.1');
      const listen = spawnCli(
        ['listen', '--port', String(port), '--data-dir', path.join(dir, 'listen-data'), '--secret-env', 'S', '--json'],
        { S: 'whsec_port_test_secret' },
      );
      children.push(listen.child);
      expect((await listen.firstJsonLine(30_000)).event).toBe('ready');
      const h = host('beside-listen');
      try {
        await h.setPort(port);
        await h.open();
        const err = await h.start().then(
          () => null,
          (e: unknown) => e,
        );
        expect((err as { taken: PortTaken }).taken.owner).toBe(
          `another Channel Companion (process ${listen.child.pid})`,
        );
      } finally {
        await h.close();
      }
    },
  );

  it('the app: the default port on a fresh install; a chosen port is kept across a restart', async () => {
    const opts = {
      configDir: path.join(dir, 'app-config'),
      dataDir: path.join(dir, 'app-data'),
      secrets: new MemorySecretStore(),
      poll: { intervalMs: 60_000 },
    };
    const first = await createCompanion({ ...opts, tunnelPort: 0 });
    companions.push(first);
    expect(first.settings().app.tunnelPort).toBe(DEFAULT_TUNNEL_PORT);
    const chosen = await freePortNear(41_000 + (process.pid % 5_000), '127.0.0.1');
    await first.updateSettings({ app: { tunnelPort: chosen } });
    expect((await first.startTunnel()).port).toBe(chosen);
    await first.close();
    companions.pop();

    const again = await createCompanion(opts);
    companions.push(again);
    expect(again.settings().app.tunnelPort).toBe(chosen);
    expect(await again.startTunnel()).toEqual({ port: chosen, url: `http://127.0.0.1:${chosen}` });
  });

  it('the app: tunnel.status tells the taken port and the offer; saving the offered port starts the receiver there', async () => {
    const held = await holdPort();
    children.push(held.child);
    const companion = await createCompanion({
      configDir: path.join(dir, 'offer-config'),
      dataDir: path.join(dir, 'offer-data'),
      secrets: new MemorySecretStore(),
      poll: { intervalMs: 60_000 },
      tunnelPort: 0,
    });
    companions.push(companion);
    const contract = implementContract(companion);
    const handlers = createHandlers(contract.implementations);
    const ok = async <T>(name: RequestName, args: unknown = {}): Promise<T> => {
      const r = await (handlers[name] as (a: unknown) => Promise<Result<unknown>>)(args);
      if (!r.ok) throw new Error(`${name}: ${r.error.code} ${r.error.message}`);
      return r.value as T;
    };
    try {
      await ok('settings.update', { patch: { tunnel: { port: held.port, forwardTo: null } } });
      const taken = await waitFor(
        async () => (await ok<TunnelStatusDTO>('tunnel.status')).portTaken ?? undefined,
        10_000,
      );
      expect(taken.port).toBe(held.port);
      expect(taken.owner).toContain('another program');
      expect(taken.alternative).not.toBeNull();
      const st = await ok<TunnelStatusDTO>('tunnel.status');
      expect(st.running).toBe(false);
      await ok('settings.update', { patch: { tunnel: { port: taken.alternative, forwardTo: null } } });
      const after = await ok<TunnelStatusDTO>('tunnel.status');
      expect(after.portTaken).toBeNull();
      expect(after.listenUrl).toBe(`http://127.0.0.1:${taken.alternative}`);
      expect((await ok<{ tunnel: { port: number } }>('settings.get')).tunnel.port).toBe(taken.alternative);
    } finally {
      contract.dispose();
    }
  });

  it('`listen --port` on a taken port: names the holder and the flag to use', async () => {
    const held = await holdPort();
    children.push(held.child);
    const r = await runBin(
      ['listen', '--port', String(held.port), '--data-dir', path.join(dir, 'listen-taken'), '--secret-env', 'S'],
      { S: 'whsec_port_test_secret' },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`could not listen on 127.0.0.1:${held.port}: the port is taken by another program`);
    if (process.platform === 'linux') expect(r.stderr).toContain(`(node, process ${held.child.pid})`);
    expect(r.stderr).toMatch(/use --port \d+ \(free now\) or --port 0 \(any free port\)/);
  });
});
