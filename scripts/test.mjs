#!/usr/bin/env node
// `npm test`: every suite (vitest unit + integration; the build; the packaging suite over what it
// built; Playwright e2e in Chromium and Electron mode), run inside a private D-Bus session with an
// unlocked gnome-keyring so the OS keychain is real. Ends with one plain line:
// `N passed, N failed, N skipped`.
// Set-up first: node_modules (npm ci) when absent, and the system packages the suites need
// (scripts/system-deps.mjs installs the missing ones with apt-get, through sudo when not root).
// What cannot be installed skips the suites that need it, naming the command to run; in CI
// (CI=true) it fails the run instead.
// Flags: --unit (vitest only), --no-build (use the existing out/).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_CHROMIUM, ensureSystemDeps, systemProbe } from './system-deps.mjs';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const onlyUnit = args.includes('--unit');
const noBuild = args.includes('--no-build');
const ci = !!process.env.CI && process.env.CI !== 'false';

function run(cmd, cmdArgs, env = {}) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function failNow(message) {
  console.error(`test: ${message}`);
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}

// 1. Set-up, then re-exec inside a D-Bus session with an unlocked Secret Service (fresh HOME).
if (!process.env.CC_TEST_SESSION) {
  if (!existsSync(join(root, 'node_modules', '.bin', 'vitest'))) {
    console.error('test: node_modules is missing; installing it (npm ci)');
    if (run('npm', ['ci', '--no-audit', '--no-fund']) !== 0) failNow('npm ci failed');
  }
  const deps = ensureSystemDeps();
  if (deps.installed.length) console.error(`test: installed ${deps.installed.join(', ')}`);
  if (deps.missing.length) {
    const what = `${deps.missing.map((d) => `${d.pkg} (${d.needFor})`).join(', ')} missing: ${deps.reason}; install with: ${deps.hint}`;
    if (ci) failNow(`${what}. In CI a missing system dependency is a failure.`);
    console.error(`test: warning: ${what}. The suites that need them skip.`);
  }
  const probe = systemProbe();
  if (probe.which('dbus-run-session') && probe.which('gnome-keyring-daemon')) {
    const home = mkdtempSync(join(tmpdir(), 'cc-test-home-'));
    const inner = `echo -n pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec node ${JSON.stringify(join(root, 'scripts/test.mjs'))} ${args.map((a) => JSON.stringify(a)).join(' ')}`;
    const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', inner], {
      stdio: 'inherit',
      env: {
        ...process.env,
        CC_TEST_SESSION: '1',
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local/share'),
        XDG_RUNTIME_DIR: home,
        // npm keeps the person's cache and settings under the fresh HOME (the packaging suite installs from the registry).
        npm_config_cache: process.env.npm_config_cache || join(homedir(), '.npm'),
        npm_config_userconfig: process.env.npm_config_userconfig || join(homedir(), '.npmrc'),
      },
    });
    rmSync(home, { recursive: true, force: true });
    process.exit(r.status ?? 1);
  }
}

const tmp = join(root, '.tmp');
mkdirSync(tmp, { recursive: true });
const suites = [];

/** Runs vitest with a JSON report and records its counts; a file that failed to load counts as a failure. */
function vitestSuite(name, extraArgs) {
  const out = join(tmp, `${name}.json`);
  rmSync(out, { force: true });
  const code = run('npx', [
    'vitest',
    'run',
    ...extraArgs,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${out}`,
  ]);
  if (!existsSync(out)) return suites.push({ name, passed: 0, failed: 1, skipped: 0 });
  const j = JSON.parse(readFileSync(out, 'utf8'));
  const s = {
    name,
    passed: j.numPassedTests,
    failed: j.numFailedTests,
    skipped: (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0),
  };
  s.failed += (j.testResults ?? []).filter(
    (f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0,
  ).length;
  if (code !== 0 && s.failed === 0) s.failed = 1;
  suites.push(s);
}

// 2. Vitest: unit + integration.
vitestSuite('vitest', []);

// 3. The build (renderer budget included), then the suites over its output.
if (!onlyUnit) {
  const built = noBuild || run('npm', ['run', 'build']) === 0;
  if (!built) suites.push({ name: 'build', passed: 0, failed: 1, skipped: 0 });
  else {
    vitestSuite('packaging', ['--config', 'vitest.packaging.config.ts']);

    const specs = (dir) =>
      existsSync(join(root, dir))
        ? readdirSync(join(root, dir), { recursive: true }).filter((f) => String(f).endsWith('.spec.ts'))
        : [];
    const hasSpecs = specs('test/e2e').length > 0 || specs('test/electron').length > 0;
    const chromium = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
    // Outside CI only: in CI the set-up step has already failed the run.
    if (hasSpecs && !existsSync(chromium)) {
      console.error(
        `test: Chromium not found at ${chromium}; browser suites skipped (apt-get install chromium, or set CHROMIUM_PATH).`,
      );
      const listed = spawnSync('npx', ['playwright', 'test', '--list'], { cwd: root, encoding: 'utf8' }).stdout ?? '';
      suites.push({
        name: 'playwright',
        passed: 0,
        failed: 0,
        skipped: Number(/Total: (\d+) tests?/.exec(listed)?.[1] ?? 0),
      });
    } else if (hasSpecs) {
      const out = join(tmp, 'playwright.json');
      rmSync(out, { force: true });
      const code = run('npx', ['playwright', 'test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: out });
      if (existsSync(out)) {
        const st = JSON.parse(readFileSync(out, 'utf8')).stats ?? {};
        const s = {
          name: 'playwright',
          passed: (st.expected ?? 0) + (st.flaky ?? 0),
          failed: st.unexpected ?? 0,
          skipped: st.skipped ?? 0,
        };
        if (code !== 0 && s.failed === 0) s.failed = 1;
        suites.push(s);
      } else suites.push({ name: 'playwright', passed: 0, failed: 1, skipped: 0 });
    }
  }
}

const totals = { passed: 0, failed: 0, skipped: 0 };
for (const s of suites) {
  totals.passed += s.passed;
  totals.failed += s.failed;
  totals.skipped += s.skipped;
  console.error(`test: ${s.name}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
}
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
