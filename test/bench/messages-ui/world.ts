// What the two Messages benchmarks in Chromium share: the emulator (its own process, as the real
// service would be), `channel-companion serve` with its own HOME, config and data folders (a data
// folder that can be filled with a thread before serve starts), a team with one agent, and Chromium
// launched as the e2e project launches it.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { systemClock } from '../../../src-main/core/ports';
import { EventLog, type StoredDelivery } from '../../../src-main/core/tunnel';
import config from '../../../playwright.config';
import {
  hostCall,
  keychainUnavailableReason,
  makeServeHome,
  startServe,
  type EmulatorReady,
  type RunningServe,
} from '../../e2e/support/serve';
import { spawnCli } from '../../helpers/spawn-cli';

export const AGENT = 'agent-connected';

export interface World {
  emu: EmulatorReady;
  serve: RunningServe;
  teamId: string;
  browser: Browser;
  /** The app's address with its access token (the page takes the token out of it). */
  appUrl: string;
  stop(): Promise<void>;
}

/** One verified message.received delivery as the receiver stores it. */
function delivery(i: number, from: string, at: number, text: string): StoredDelivery {
  const body = {
    event: 'message.received',
    from,
    message: { id: `wamid_bench_${i}`, type: 'text', text, fromMe: false },
    timestamp: new Date(at).toISOString(),
  };
  return {
    kind: 'delivery',
    id: `dlv_bench_${i}`,
    agentId: AGENT,
    receivedAt: at,
    method: 'POST',
    path: `/hooks/${AGENT}`,
    headers: { 'content-type': 'application/json' },
    bodyBase64: Buffer.from(JSON.stringify(body)).toString('base64'),
    verdict: { ok: true, reason: 'verified', scheme: 'v1', timestamp: Math.floor(at / 1000), steps: [] },
    summary: { event: 'message.received', from, messageId: body.message.id, type: 'text' },
    forward: false,
  };
}

/**
 * A thread of `count` messages with `contact` in a data folder, newest `now`, one every 20 s:
 * every other one inbound (in the tunnel's log, which keeps 10,000 deliveries by default), the
 * others sent from this install (in the send log). Message i reads `message <i>: …`.
 */
export async function fillThread(dataDir: string, contact: string, count: number, now: number): Promise<void> {
  const at = (i: number) => now - (count - 1 - i) * 20_000;
  const text = (i: number) => `message ${i}: where is my order, it was due yesterday`;
  const log = new EventLog({ dataDir: join(dataDir, 'tunnel'), clock: systemClock });
  await log.open();
  const writes: Promise<void>[] = [];
  for (let i = 0; i < count; i += 2) writes.push(log.appendDelivery(delivery(i, contact, at(i), text(i))));
  await Promise.all(writes);
  await log.close();
  const lines: string[] = [];
  for (let i = 1; i < count; i += 2)
    lines.push(
      JSON.stringify({
        id: `send_bench_${i}`,
        at: at(i),
        teamId: null,
        agentId: AGENT,
        to: `+${contact}`,
        kind: 'text',
        text: text(i),
        via: 'console',
        messageId: `wamid_sent_${i}`,
        status: 'sent',
      }),
    );
  await mkdir(join(dataDir, 'messages'), { recursive: true, mode: 0o700 });
  await writeFile(join(dataDir, 'messages', 'sent.jsonl'), `${lines.join('\n')}\n`, { mode: 0o600 });
}

function launchArgs(): { executablePath: string; args: string[] } {
  const e2e = config.projects?.find((p) => p.name === 'e2e');
  const lo = e2e?.use?.launchOptions ?? {};
  return { executablePath: lo.executablePath ?? '/usr/bin/chromium', args: lo.args ?? ['--no-sandbox'] };
}

/** Starts the emulator, serve (after `before` filled its data folder) with a team of one agent, and Chromium. */
export async function startWorld(label: string, before?: (dataDir: string) => Promise<void>): Promise<World> {
  const noKeychain = keychainUnavailableReason();
  if (noKeychain) throw new Error(`OS keychain unavailable (the bench adds a team): ${noKeychain}`);
  const emuProc = spawnCli(['emulator', '--json', '--port', '0']);
  const home = makeServeHome();
  let serve: RunningServe | null = null;
  let browser: Browser | null = null;
  const stop = async () => {
    await browser?.close().catch(() => undefined);
    await serve?.stop();
    emuProc.child.kill('SIGTERM');
    await emuProc.exited;
    home.remove();
  };
  try {
    const emu = (await emuProc.firstJsonLine()) as unknown as EmulatorReady;
    if (before) await before(home.dataDir);
    serve = await startServe(['--no-demo-team', '--port', '0', '--poll-sec', '300', '--fast-poll-sec', '300'], home);
    const team = await hostCall<{ teamId: string }>(serve.ready, 'teams.add', {
      label,
      baseUrl: emu.baseUrl,
      apiKey: emu.apiKey,
      agents: [{ agentId: AGENT }],
    });
    browser = await chromium.launch({ headless: true, ...launchArgs() });
    return { emu, serve, teamId: team.teamId, browser, appUrl: serve.ready.url, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The Messages route of the agent, or of one thread. */
export function messagesHash(teamId: string, contact?: string): string {
  const p = new URLSearchParams({ team: teamId, agent: AGENT });
  if (contact) p.set('with', contact);
  return `#/messages?${p.toString()}`;
}

export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
export const r2 = (n: number): number => Math.round(n * 100) / 100;
