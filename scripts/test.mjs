#!/usr/bin/env node
// `npm test`: every suite (vitest unit + integration, Playwright e2e in Chromium, Playwright
// Electron mode), run inside a private D-Bus session with an unlocked gnome-keyring so the OS
// keychain is real. Ends with one plain line: `N passed, N failed, N skipped`.
// In CI (CI=true) a missing system dependency fails the run instead of skipping suites.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const onlyUnit = args.includes('--unit');
const noBuild = args.includes('--no-build');
const ci = !!process.env.CI && process.env.CI !== 'false';

function which(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

// 1. Re-exec inside a D-Bus session with an unlocked Secret Service (fresh HOME) unless already there.
if (!process.env.CC_TEST_SESSION) {
  const haveDbus = which('dbus-run-session');
  const haveKeyring = which('gnome-keyring-daemon');
  if (haveDbus && haveKeyring) {
    const home = mkdtempSync(join(tmpdir(), 'cc-test-home-'));
    const inner = `echo -n pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec node ${JSON.stringify(join(root, 'scripts/test.mjs'))} ${args.map((a) => JSON.stringify(a)).join(' ')}`;
    const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', inner], {
      stdio: 'inherit',
      env: { ...process.env, CC_TEST_SESSION: '1', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'), XDG_RUNTIME_DIR: home },
    });
    rmSync(home, { recursive: true, force: true });
    process.exit(r.status ?? 1);
  }
  const why = `the OS keychain suites need ${!haveDbus ? 'dbus-run-session (apt-get install dbus)' : 'gnome-keyring-daemon (apt-get install gnome-keyring)'}`;
  if (ci) {
    console.error(`test: ${why}; in CI a missing system dependency is a failure.`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  console.error(`test: warning: ${why}; keychain tests will skip.`);
}

const tmp = join(root, '.tmp');
mkdirSync(tmp, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
const suites = [];

function run(cmd, cmdArgs, env = {}) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

// 2. Vitest: unit + integration.
{
  const out = join(tmp, 'vitest.json');
  rmSync(out, { force: true });
  const code = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`]);
  if (existsSync(out)) {
    const j = JSON.parse(readFileSync(out, 'utf8'));
    const s = { name: 'vitest', passed: j.numPassedTests, failed: j.numFailedTests, skipped: (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0) };
    // A failed suite file (import error) has no tests: count it as a failure.
    const brokenFiles = (j.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0).length;
    s.failed += brokenFiles;
    if (code !== 0 && s.failed === 0) s.failed = 1;
    suites.push(s);
  } else {
    suites.push({ name: 'vitest', passed: 0, failed: 1, skipped: 0 });
  }
}

// 3. Playwright: e2e (browser host in Debian's Chromium) and Electron mode.
const specs = (dir) => (existsSync(join(root, dir)) ? readdirSync(join(root, dir), { recursive: true }).filter((f) => String(f).endsWith('.spec.ts')) : []);
if (!onlyUnit && (specs('test/e2e').length || specs('test/electron').length)) {
  const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    const msg = `test: Chromium not found at ${chromium} (apt-get install chromium)`;
    if (ci) {
      console.error(`${msg}; in CI a missing system dependency is a failure.`);
      suites.push({ name: 'playwright', passed: 0, failed: 1, skipped: 0 });
    } else console.error(`${msg}; browser suites skipped.`);
  } else {
    if (!noBuild && run('npx', ['electron-vite', 'build']) !== 0) {
      suites.push({ name: 'build', passed: 0, failed: 1, skipped: 0 });
    } else {
      const out = join(tmp, 'playwright.json');
      rmSync(out, { force: true });
      const code = run('npx', ['playwright', 'test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: out });
      if (existsSync(out)) {
        const st = JSON.parse(readFileSync(out, 'utf8')).stats ?? {};
        const s = { name: 'playwright', passed: (st.expected ?? 0) + (st.flaky ?? 0), failed: st.unexpected ?? 0, skipped: st.skipped ?? 0 };
        if (code !== 0 && s.failed === 0) s.failed = 1;
        suites.push(s);
      } else suites.push({ name: 'playwright', passed: 0, failed: 1, skipped: 0 });
    }
  }
}

for (const s of suites) {
  totals.passed += s.passed;
  totals.failed += s.failed;
  totals.skipped += s.skipped;
  console.error(`test: ${s.name}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
}
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
