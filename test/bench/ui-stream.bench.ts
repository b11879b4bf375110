// UI streaming benchmark, in Chromium against `channel-companion serve --emulator`: 20,000 tokens at
// 2,000 tokens/s into the chat window. The window must end with EXACTLY the streamed text; long
// tasks during the stream are counted (none may exceed 50 ms); and the median delay from a token
// leaving the source to appearing in the DOM is set against a bare page reading the same SSE stream
// (fetch + a reader, tokens appended to a <pre>). ratio = bare median ÷ ours median (higher is
// better; target 0.5, i.e. ours at most twice the bare delay).
//
// The tokens come from ui-stream/source.ts, which speaks the emulator's chat SSE format and proxies
// every other request to serve's emulator: the emulator's chat-script caps a script at 10,000 tokens
// and whole-ms delays (≤ ~1,000 tokens/s). Every 100th token carries ⟨t=<epoch ms>⟩ stamped as it is
// written; a MutationObserver in the page (ui-stream/probe.ts, the same code for both pages) takes
// the difference when the marker shows up. Same machine, same clock (performance.timeOrigin + now()).
// Rounds alternate (bare, ours, ours, bare); delays are pooled per side.
import { chromium, type Browser, type Page } from 'playwright-core';
import config from '../../playwright.config';
import { keychainUnavailableReason, makeServeHome, startServe, type ServeReady } from '../e2e/support/serve';
import { probeScript, STOP_PROBE, type ProbeResult } from './ui-stream/probe';
import { startTokenSource, type StreamRecord, type TokenSource } from './ui-stream/source';

export const target = 0.5;

const TOKENS = 20_000;
const PER_SECOND = 2_000;
const WARMUP_TOKENS = 1_000;
const ROUNDS = 2;
const AGENT = 'agent-connected';
const LONG_TASK_MS = 50;

function launchArgs(): { executablePath: string; args: string[] } {
  const e2e = config.projects?.find((p) => p.name === 'e2e');
  const lo = e2e?.use?.launchOptions ?? {};
  return { executablePath: lo.executablePath ?? '/usr/bin/chromium', args: lo.args ?? ['--no-sandbox'] };
}

async function hostCall<T>(ready: ServeReady, name: string, args: unknown): Promise<T> {
  const token = new URL(ready.url).hash.replace(/^#token=/, '');
  const res = await fetch(`${ready.origin}/api/${name}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(args) });
  const body = (await res.json()) as { ok: boolean; value?: T; error?: unknown };
  if (!body.ok) throw new Error(`host ${name}: ${JSON.stringify(body.error)}`);
  return body.value as T;
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const median = (xs: number[]): number => pct(xs, 50);
const r2 = (n: number): number => Math.round(n * 100) / 100;

interface RunOut {
  probe: ProbeResult;
  exact: boolean;
  shownChars: number;
  rec: StreamRecord;
}

/** Our chat window: type, send, wait for the end, compare the bubble with what was streamed. */
async function oursTurn(page: Page, source: TokenSource, tokens: number, measure: boolean): Promise<RunOut> {
  source.plan({ tokens, perSecond: PER_SECOND });
  if (measure) await page.evaluate(probeScript('.chat-list', 'li.chat-agent .md'));
  const streamed = source.nextStream();
  const before = await page.locator('li.chat-agent').count();
  await page.getByLabel('Message', { exact: true }).fill(`stream ${tokens} tokens`);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  const rec = await streamed;
  await page.waitForFunction(
    `(() => { const l = document.querySelectorAll('li.chat-agent'); const x = l[l.length - 1]; return l.length > ${before} && x.dataset.status !== 'streaming'; })()`,
    undefined,
    { timeout: 60_000 },
  );
  const probe = measure ? ((await page.evaluate(STOP_PROBE)) as ProbeResult) : { delays: [], longTasks: [] };
  const shown = await page.locator('li.chat-agent').last().locator('.md').evaluate((el) => el.textContent ?? '');
  const status = await page.locator('li.chat-agent').last().getAttribute('data-status');
  return { probe, exact: status === 'done' && shown === rec.text, shownChars: shown.length, rec };
}

/** The bare page: the same stream, read with fetch, appended to a <pre>. */
async function bareTurn(page: Page, source: TokenSource, apiKey: string, tokens: number, measure: boolean): Promise<RunOut> {
  source.plan({ tokens, perSecond: PER_SECOND });
  if (measure) await page.evaluate(probeScript('body', '#out'));
  const streamed = source.nextStream();
  const url = `${source.url}/api/v1/agents/${AGENT}/chat`;
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' };
  const body = JSON.stringify({ message: `stream ${tokens} tokens`, user_id: 'bare', stream: true });
  const shown = (await page.evaluate(`window.bareRun(${JSON.stringify(url)}, ${JSON.stringify(headers)}, ${JSON.stringify(body)})`)) as string;
  const rec = await streamed;
  const probe = measure ? ((await page.evaluate(STOP_PROBE)) as ProbeResult) : { delays: [], longTasks: [] };
  return { probe, exact: shown === rec.text, shownChars: shown.length, rec };
}

export async function run() {
  const noKeychain = keychainUnavailableReason();
  if (noKeychain) throw new Error(`OS keychain unavailable (the bench adds a team): ${noKeychain}`);
  const home = makeServeHome();
  const serve = await startServe(['--emulator', '--no-demo-team', '--port', '0', '--poll-sec', '300', '--fast-poll-sec', '300'], home);
  let source: TokenSource | null = null;
  let browser: Browser | null = null;
  try {
    const emu = serve.ready.emulator;
    if (!emu) throw new Error('serve --emulator gave no emulator');
    source = await startTokenSource(emu.baseUrl);
    const team = await hostCall<{ teamId: string }>(serve.ready, 'teams.add', { label: 'UI stream bench', baseUrl: source.url, apiKey: emu.apiKey, agents: [{ agentId: AGENT }] });

    browser = await chromium.launch({ headless: true, ...launchArgs() });
    // bypassCSP: the app's CSP forbids eval, which Playwright's string predicates use (probe only).
    const ours = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    await ours.goto(serve.ready.url);
    await ours.waitForFunction(`!location.hash.includes('token=')`);
    await ours.evaluate(`location.hash = ${JSON.stringify(`#/agents/${AGENT}/chat?team=${encodeURIComponent(team.teamId)}`)}`);
    await ours.getByLabel('Message', { exact: true }).waitFor();
    const bare = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await bare.goto(`${source.url}/bare.html`);

    // Warm-up of both (JIT, connections), not measured.
    await bareTurn(bare, source, emu.apiKey, WARMUP_TOKENS, false);
    await oursTurn(ours, source, WARMUP_TOKENS, false);

    const oursRuns: RunOut[] = [];
    const bareRuns: RunOut[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        bareRuns.push(await bareTurn(bare, source, emu.apiKey, TOKENS, true));
        oursRuns.push(await oursTurn(ours, source, TOKENS, true));
      } else {
        oursRuns.push(await oursTurn(ours, source, TOKENS, true));
        bareRuns.push(await bareTurn(bare, source, emu.apiKey, TOKENS, true));
      }
    }

    const oursDelays = oursRuns.flatMap((r) => r.probe.delays);
    const bareDelays = bareRuns.flatMap((r) => r.probe.delays);
    const oursLong = oursRuns.flatMap((r) => r.probe.longTasks);
    const bareLong = bareRuns.flatMap((r) => r.probe.longTasks);
    const markers = TOKENS / 100;
    const oursMedian = median(oursDelays);
    const bareMedian = median(bareDelays);
    const rates = [...oursRuns, ...bareRuns].map((r) => r.rec.tokens / ((r.rec.lastWriteAt - r.rec.firstWriteAt) / 1000));
    const exact = oursRuns.every((r) => r.exact) && bareRuns.every((r) => r.exact);
    const allMarkers = oursRuns.every((r) => r.probe.delays.length === markers);
    const longOver = oursLong.filter((d) => d > LONG_TASK_MS);
    return {
      name: 'ui-stream',
      ratio: bareMedian / oursMedian,
      target,
      pass: exact && allMarkers && longOver.length === 0,
      unit: 'ms token→screen (median)',
      oursMedianMs: r2(oursMedian),
      bareMedianMs: r2(bareMedian),
      oursP95Ms: r2(pct(oursDelays, 95)),
      bareP95Ms: r2(pct(bareDelays, 95)),
      oursMaxMs: r2(Math.max(...oursDelays)),
      exactText: exact,
      oursChars: oursRuns.map((r) => r.shownChars),
      markersSeen: oursRuns.map((r) => r.probe.delays.length),
      markersExpected: markers,
      oursLongTasks: oursLong.length,
      oursLongTaskMaxMs: oursLong.length ? r2(Math.max(...oursLong)) : 0,
      bareLongTasks: bareLong.length,
      bareLongTaskMaxMs: bareLong.length ? r2(Math.max(...bareLong)) : 0,
      tokens: TOKENS,
      targetTokensPerSec: PER_SECOND,
      realTokensPerSec: Math.round(median(rates)),
      rounds: ROUNDS,
    };
  } finally {
    await browser?.close().catch(() => undefined);
    await source?.close().catch(() => undefined);
    await serve.stop();
    home.remove();
  }
}
