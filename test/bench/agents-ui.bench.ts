// The Agents screen at team scale, in Chromium: `channel-companion serve` with its emulator and a
// team of 10,000 agents (test/e2e/support/many-agents.ts), polled every 15 s, so health events
// arrive all the time (the host publishes one per poll). Ours: the app's Agents screen. Baseline: a
// bare page at the host's origin showing the same agents with the same virtualiser
// (@tanstack/virtual-core over the window), fed by the same host's agents.list and health.changed
// events (agents-ui/bare-list.html). For each, a fresh page per round: the time from navigation to
// the end of the first frame painted with rows, then, after a settling pause, 20 s while polls
// arrive: long tasks (over 50 ms), the longest, and the DOM's elements and rows at the end. Rounds
// alternate (bare, ours, ours, bare, …); medians. ratio = bare ÷ ours time to first rows painted;
// it fails too when ours has a task over 50 ms in the window or more than 300 rows in the page. The agents
// carry labels (a region, a tier, and every tenth `vip`); after its window, each round of ours picks the label
// filter `vip` and times it until the filtered rows are painted (its tasks over 50 ms fail it too).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import config from '../../playwright.config';
import { addScaleTeam } from '../e2e/support/many-agents';
import { keychainUnavailableReason, makeServeHome, REPO, startServe, type RunningServe } from '../e2e/support/serve';
import { median } from '../helpers/bench-stats';

export const target = 0.5;

const COUNT = Number(process.env.AGENTS_UI_COUNT ?? 10_000);
const ROUNDS = Number(process.env.AGENTS_UI_ROUNDS ?? 2);
const WINDOW_MS = 20_000;
/** After the first rows, before the window: the first load's own work is not counted as "while polls arrive". */
const SETTLE_MS = 3_000;
const LONG_TASK_MS = 50;
const MAX_ROWS = 300;
const POLL_SEC = 15;
const BARE_HTML = readFileSync(new URL('./agents-ui/bare-list.html', import.meta.url));
const VIRTUAL_CORE = path.join(REPO, 'node_modules/@tanstack/virtual-core/dist/esm');
/** A file for a V8 CPU profile (.cpuprofile) of ours' first round's window, when set. */
const PROFILE = process.env.AGENTS_UI_PROFILE;

interface Round {
  firstRowsMs: number;
  longTasks: number[];
  domNodes: number;
  rows: number;
  /** health.changed events the bare page read in the window (null for ours). */
  events: number | null;
  /** Ours: from choosing the label filter to the filtered rows painted, and its tasks over 50 ms. */
  filter: { ms: number; longTasks: number[] } | null;
}

/** The labels of the i-th agent: a region, a tier, and every tenth `vip` (1,000 of 10,000). */
const labelsOf = (i: number): string[] => [
  ['eu-west', 'us-east', 'ap-south'][i % 3]!,
  `tier.${i % 4}`,
  ...(i % 10 === 0 ? ['vip'] : []),
];
const FILTER_LABEL = 'vip';

interface Probed {
  __probe: { firstRowsMs: number | null };
}

/** Installed before any script of the page: long tasks, and when the first row is painted. */
function probe(selector: string): string {
  return `(() => {
  const p = (window.__probe = { firstRowsMs: null, longTasks: [] });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) p.longTasks.push({ at: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  const mo = new MutationObserver(() => {
    if (!document.querySelector(${JSON.stringify(selector)})) return;
    mo.disconnect();
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => (p.firstRowsMs = performance.now());
      ch.port2.postMessage(0);
    });
  });
  mo.observe(document, { childList: true, subtree: true });
})();`;
}

/** Ours: picks the label filter and waits for the filtered rows to be painted; the time and its long tasks. */
async function filterByLabel(page: Page): Promise<NonNullable<Round['filter']>> {
  const select = page.getByLabel('Label', { exact: true });
  await select.waitFor();
  const t0 = (await page.evaluate('performance.now()')) as number;
  await select.selectOption(FILTER_LABEL);
  await page.waitForFunction("/ of /.test(document.querySelector('.filter-count')?.textContent ?? '')");
  const t1 = (await page.evaluate(
    'new Promise((r) => requestAnimationFrame(() => { const ch = new MessageChannel(); ch.port1.onmessage = () => r(performance.now()); ch.port2.postMessage(0); }))',
  )) as number;
  const longTasks = (await page.evaluate(
    `window.__probe.longTasks.filter((t) => t.at + t.ms >= ${t0} && t.at <= ${t1}).map((t) => t.ms)`,
  )) as number[];
  return { ms: t1 - t0, longTasks };
}

async function round(ctx: BrowserContext, url: string, selector: string, profile?: string): Promise<Round> {
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(url);
    await page
      .waitForFunction(() => (globalThis as unknown as Probed).__probe.firstRowsMs !== null, null, { timeout: 120_000 })
      .catch((e: unknown) => {
        throw new Error(`${url.split('#')[0]} showed no rows: ${errors.join('; ') || String(e)}`);
      });
    await page.waitForTimeout(SETTLE_MS);
    const cdp = profile ? await ctx.newCDPSession(page) : null;
    await cdp?.send('Profiler.enable');
    await cdp?.send('Profiler.start');
    const start = (await page.evaluate('[performance.now(), window.bareEvents ?? null]')) as [number, number | null];
    await page.waitForTimeout(WINDOW_MS);
    if (cdp && profile) writeFileSync(profile, JSON.stringify((await cdp.send('Profiler.stop')).profile));
    const measured = (await page.evaluate(`(() => {
      const p = window.__probe;
      return {
        firstRowsMs: p.firstRowsMs,
        longTasks: p.longTasks.filter((t) => t.at >= ${start[0]}).map((t) => t.ms),
        domNodes: document.getElementsByTagName('*').length,
        rows: document.querySelectorAll(${JSON.stringify(selector)}).length,
        events: window.bareEvents === undefined ? null : window.bareEvents - ${start[1] ?? 0},
      };
    })()`)) as Omit<Round, 'filter'>;
    return { ...measured, filter: measured.events === null ? await filterByLabel(page) : null };
  } finally {
    await page.close();
  }
}

function launchArgs(): { executablePath: string; args: string[] } {
  const e2e = config.projects?.find((p) => p.name === 'e2e');
  const lo = e2e?.use?.launchOptions ?? {};
  return { executablePath: lo.executablePath ?? '/usr/bin/chromium', args: lo.args ?? ['--no-sandbox'] };
}

const r1 = (n: number): number => Math.round(n * 10) / 10;
const r2 = (n: number): number => Math.round(n * 100) / 100;

function summary(rounds: Round[]) {
  const tasks = rounds.map((r) => r.longTasks);
  return {
    firstRowsMs: median(rounds.map((r) => r.firstRowsMs)),
    domNodes: Math.max(...rounds.map((r) => r.domNodes)),
    rows: Math.max(...rounds.map((r) => r.rows)),
    longTasks: median(tasks.map((t) => t.length)),
    longestTaskMs: Math.max(0, ...tasks.flat()),
    filterMs: median(rounds.map((r) => r.filter?.ms ?? 0)),
    filterLongestTaskMs: Math.max(0, ...rounds.flatMap((r) => r.filter?.longTasks ?? [])),
  };
}

export async function run() {
  const noKeychain = keychainUnavailableReason();
  if (noKeychain) throw new Error(`OS keychain unavailable (the bench adds a team): ${noKeychain}`);
  const home = makeServeHome();
  let serve: RunningServe | null = null;
  let browser: Browser | null = null;
  try {
    serve = await startServe(
      ['--emulator', '--no-demo-team', '--port', '0', '--poll-sec', String(POLL_SEC), '--fast-poll-sec', '2'],
      home,
      60_000,
    );
    const emu = serve.ready.emulator;
    if (!emu) throw new Error('serve started no emulator');
    await addScaleTeam(serve.ready, emu, home.configDir, {
      label: 'Fleet',
      prefix: 'fleet',
      count: COUNT,
      unlinkedEvery: 1_000,
      labels: labelsOf,
    });
    // One poll interval, so every agent has its first poll behind it and polls arrive at their steady rate.
    await new Promise((r) => setTimeout(r, POLL_SEC * 1000));

    browser = await chromium.launch(launchArgs());
    const viewport = { width: 1280, height: 800 };
    const ours = await browser.newContext({ viewport });
    await ours.addInitScript(probe('ul.agents > li'));
    const bare = await browser.newContext({ viewport });
    await bare.addInitScript(probe('li.bare-row'));
    const origin = serve.ready.origin;
    const token = new URL(serve.ready.url).hash;
    await bare.route(`${origin}/bench-bare-agents.html`, (r) =>
      r.fulfill({ status: 200, contentType: 'text/html', body: BARE_HTML }),
    );
    await bare.route(`${origin}/bench-virtual-core/*`, (r) => {
      const file = path.basename(new URL(r.request().url()).pathname);
      return r.fulfill({
        status: 200,
        contentType: 'text/javascript',
        body: readFileSync(path.join(VIRTUAL_CORE, file)),
      });
    });
    const bareUrl = `${origin}/bench-bare-agents.html${token}`;

    const o: Round[] = [];
    const b: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) {
        b.push(await round(bare, bareUrl, 'li.bare-row'));
        o.push(await round(ours, serve.ready.url, 'ul.agents > li', i === 0 ? PROFILE : undefined));
      } else {
        o.push(await round(ours, serve.ready.url, 'ul.agents > li'));
        b.push(await round(bare, bareUrl, 'li.bare-row'));
      }
    }
    const so = summary(o);
    const sb = summary(b);
    const events = b.map((r) => r.events ?? 0);
    return {
      name: 'agents-ui',
      ratio: sb.firstRowsMs / so.firstRowsMs,
      target,
      pass: so.longestTaskMs <= LONG_TASK_MS && so.rows <= MAX_ROWS && so.filterLongestTaskMs <= LONG_TASK_MS,
      agents: COUNT,
      rounds: ROUNDS,
      windowSec: WINDOW_MS / 1000,
      healthEventsPerSec: r1(median(events) / (WINDOW_MS / 1000)),
      oursFirstRowsMs: r1(so.firstRowsMs),
      bareFirstRowsMs: r1(sb.firstRowsMs),
      oursDomNodes: so.domNodes,
      bareDomNodes: sb.domNodes,
      domNodesOursOverBare: r2(so.domNodes / sb.domNodes),
      oursRows: so.rows,
      bareRows: sb.rows,
      oursLongTasks: so.longTasks,
      bareLongTasks: sb.longTasks,
      oursLongestTaskMs: r1(so.longestTaskMs),
      bareLongestTaskMs: r1(sb.longestTaskMs),
      oursLabelFilterMs: r1(so.filterMs),
      oursLabelFilterLongestTaskMs: r1(so.filterLongestTaskMs),
      oursRoundsFirstRowsMs: o.map((r) => r1(r.firstRowsMs)),
      bareRoundsFirstRowsMs: b.map((r) => r1(r.firstRowsMs)),
    };
  } finally {
    await browser?.close().catch(() => undefined);
    // A companion polling thousands of agents may not stop by itself in time: serve.stop() ends it.
    await serve?.stop();
    home.remove();
  }
}
