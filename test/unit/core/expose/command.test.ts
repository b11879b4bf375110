// Command exposures over real child processes: the fake tunnel program (forwards to a local
// server), programs that print nothing, fail, or exit later.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommandExposure } from '../../../../src-main/core/expose/command';
import { ExposeError } from '../../../../src-main/core/expose/errors';
import { type Exposure } from '../../../../src-main/core/expose/types';
import { fakeTunnelCommand, NO_NETWORK_ADDRESS } from '../../../helpers/fake-tunnel';
import { waitFor } from '../../../helpers/wait';

const ci = !!process.env.CI && process.env.CI !== 'false';
const node = `'${process.execPath}'`;

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url} ${body}`));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function failure(p: Promise<unknown>): Promise<ExposeError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ExposeError);
  return e as ExposeError;
}

describe('the command line', () => {
  it('runs trimmed, with the port in every {port}', async () => {
    // The program prints a URL built from two {port}s, then keeps running as a tunnel does.
    const x = await startCommandExposure({
      command: `  ${node} -e "console.log('https://a{port}-b{port}.example.test'); setInterval(() => {}, 1000)"  `,
      port: 4000,
    });
    try {
      expect(x.url).toBe('https://a4000-b4000.example.test');
    } finally {
      await x.stop();
    }
  });
  it.each(['', '   ', 'cloudflared tunnel'])('refuses %j with a hint', async (c) => {
    const e = await failure(Promise.resolve().then(() => startCommandExposure({ command: c, port: 1 })));
    expect(e.code).toBe('bad-command');
    expect(e.hint).toMatch(/\{port\}/);
  });
});

describe.skipIf(!ci && NO_NETWORK_ADDRESS !== null)('startCommandExposure over the fake tunnel', () => {
  it('takes the first public URL it prints (stdout or stderr) and carries requests to the port', async () => {
    for (const extra of [[], ['--stderr']]) {
      const x = await startCommandExposure({ command: fakeTunnelCommand(extra), port });
      try {
        expect(x.url).toMatch(/^http:\/\/\d+\.\d+\.\d+\.\d+:\d+$/);
        expect(x.url).not.toContain('127.0.0.1');
        const res = await fetch(`${x.url}/hooks/a1?x=1`, { method: 'POST', body: 'hello' });
        expect(await res.text()).toBe('POST /hooks/a1?x=1 hello');
      } finally {
        await x.stop();
      }
      // Stopped with its process group: the URL no longer answers.
      await expect(fetch(x.url)).rejects.toThrow();
    }
  });

  it('reports the program exiting after its URL came up, with its last output', async () => {
    const x: Exposure = await startCommandExposure({ command: fakeTunnelCommand(['--exit-after', '300']), port });
    const why = await x.lost;
    expect(why.code).toBe('exited');
    expect(why.message).toContain('exited with code 3');
    expect(why.message).toContain(x.url);
    expect(why.message).toContain('your url is');
    expect(why.hint).toMatch(/local receiver keeps working/);
  });

  it('never reports a loss after stop()', async () => {
    const x = await startCommandExposure({ command: fakeTunnelCommand(), port });
    let lost = false;
    void x.lost.then(() => (lost = true));
    await x.stop();
    await new Promise((r) => setTimeout(r, 100));
    expect(lost).toBe(false);
  });
});

describe('startCommandExposure failures', () => {
  it('a program that prints no public URL in time is stopped, and the error shows what it printed', async () => {
    const cmd = `${node} -e "console.log('starting on http://127.0.0.1:{port} as pid ' + process.pid); setInterval(() => {}, 1000)"`;
    const e = await failure(startCommandExposure({ command: cmd, port, timeoutMs: 800 }));
    expect(e.code).toBe('timeout');
    expect(e.message).toContain('no public URL within 800 ms');
    expect(e.message).toContain(`starting on http://127.0.0.1:${port}`);
    expect(e.hint).toMatch(/stdout or stderr/);
    // The program, which would run forever, is ended.
    const pid = Number(/as pid (\d+)/.exec(e.message)?.[1]);
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => !running(pid), 5000, `program ${pid} to end`);
  });

  it('a program that exits before printing a URL: its exit code and last output', async () => {
    const e = await failure(
      startCommandExposure({ command: `${node} -e "console.error('bad token for {port}'); process.exit(5)"`, port }),
    );
    expect(e.code).toBe('exited');
    expect(e.message).toContain('exited with code 5 before printing a public URL');
    expect(e.message).toContain(`bad token for ${port}`);
  });

  it('a program that is not installed says so', async () => {
    const e = await failure(startCommandExposure({ command: 'surely-not-a-tunnel-program-xyz {port}', port }));
    expect(e.code).toBe('exited');
    expect(e.message).toContain('command not found');
    expect(e.hint).toMatch(/Install the tunnel program/);
  });

  it('aborting while it starts stops the program and rejects with the reason', async () => {
    const ctl = new AbortController();
    const p = startCommandExposure({
      command: `${node} -e "setInterval(() => {}, 1000)" {port}`,
      port,
      signal: ctl.signal,
    });
    setTimeout(() => ctl.abort(new Error('stop now')), 100);
    await expect(p).rejects.toThrow('stop now');
  });
});
