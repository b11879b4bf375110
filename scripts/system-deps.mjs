// The system packages the test suites need (Debian names), found missing and installed with
// apt-get: directly as root, through sudo otherwise. Used by scripts/test.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * @typedef {{ pkg: string, needFor: string, present(probe: Probe): boolean, fixedBy?(probe: Probe): boolean }} SystemDep
 * @typedef {{ env: Record<string, string | undefined>, which(cmd: string): boolean, exists(path: string): boolean }} Probe
 */

/** @type {SystemDep[]} */
export const SYSTEM_DEPS = [
  {
    pkg: 'chromium',
    needFor: 'the browser tests (Playwright in Chromium)',
    present: (p) => p.exists(p.env.CHROMIUM_PATH || DEFAULT_CHROMIUM),
    // A CHROMIUM_PATH of one's own is not something apt can put there.
    fixedBy: (p) => !p.env.CHROMIUM_PATH || p.env.CHROMIUM_PATH === DEFAULT_CHROMIUM,
  },
  { pkg: 'dbus', needFor: 'the OS keychain tests (dbus-run-session)', present: (p) => p.which('dbus-run-session') },
  {
    pkg: 'gnome-keyring',
    needFor: 'the OS keychain tests (gnome-keyring-daemon)',
    present: (p) => p.which('gnome-keyring-daemon'),
  },
  { pkg: 'curl', needFor: 'the exported-curl test', present: (p) => p.which('curl') },
  {
    pkg: 'prometheus',
    needFor: 'the Prometheus integration test (prometheus, promtool)',
    present: (p) => p.which('prometheus'),
  },
  {
    pkg: 'prometheus-alertmanager',
    needFor: 'the Alertmanager integration test',
    present: (p) => p.which('prometheus-alertmanager'),
  },
  {
    pkg: 'postgresql',
    needFor: "the hub's integration tests (a Postgres cluster of their own)",
    present: (p) => p.exists(`${p.env.PG_BIN || '/usr/lib/postgresql/15/bin'}/initdb`),
  },
];

/** @returns {Probe} */
export function systemProbe(env = process.env) {
  return {
    env,
    which: (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0,
    exists: (path) => existsSync(path),
  };
}

/** @param {Probe} probe */
export function missingDeps(probe, deps = SYSTEM_DEPS) {
  return deps.filter((d) => !d.present(probe));
}

/**
 * How apt-get can run here: the command prefix (none as root, sudo otherwise; `sudo -n` when no
 * one is at a terminal to type a password), or why it cannot.
 * @param {{ isRoot: boolean, hasAptGet: boolean, hasSudo: boolean, interactive: boolean }} host
 * @returns {{ prefix: string[] } | { reason: string }}
 */
export function aptAccess(host) {
  if (!host.hasAptGet) return { reason: 'apt-get is not available on this system' };
  if (host.isRoot) return { prefix: [] };
  if (!host.hasSudo) return { reason: 'not running as root and sudo is not available' };
  return { prefix: host.interactive ? ['sudo'] : ['sudo', '-n'] };
}

/** The command a person would run to install `pkgs`. */
export function installHint(pkgs, isRoot = process.getuid?.() === 0) {
  return `${isRoot ? '' : 'sudo '}apt-get install -y ${pkgs.join(' ')}`;
}

/**
 * Installs what is missing where apt-get can run, then looks again.
 * @param {{ probe?: Probe, deps?: SystemDep[], host?: Parameters<typeof aptAccess>[0], log?: (line: string) => void,
 *   run?: (argv: string[]) => number }} [opts]
 * @returns {{ installed: string[], missing: SystemDep[], hint: string, reason: string | null }}
 */
export function ensureSystemDeps(opts = {}) {
  const probe = opts.probe ?? systemProbe();
  const deps = opts.deps ?? SYSTEM_DEPS;
  const log = opts.log ?? ((line) => console.error(line));
  const run =
    opts.run ?? ((argv) => spawnSync(argv[0], argv.slice(1), { stdio: ['inherit', 'ignore', 'inherit'] }).status ?? 1);
  const before = missingDeps(probe, deps);
  if (before.length === 0) return { installed: [], missing: [], hint: '', reason: null };
  const host = opts.host ?? {
    isRoot: process.getuid?.() === 0,
    hasAptGet: probe.which('apt-get'),
    hasSudo: probe.which('sudo'),
    interactive: Boolean(process.stdin.isTTY),
  };
  const hint = installHint(
    before.map((d) => d.pkg),
    host.isRoot,
  );
  const installable = before.filter((d) => !d.fixedBy || d.fixedBy(probe));
  const access = aptAccess(host);
  let reason = null;
  if ('reason' in access) reason = access.reason;
  else if (installable.length > 0) {
    const pkgs = installable.map((d) => d.pkg);
    log(`test: installing ${pkgs.join(', ')} (needed for ${installable.map((d) => d.needFor).join('; ')})`);
    const apt = [...access.prefix, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
    run([...apt, 'update', '-qq']);
    if (run([...apt, 'install', '-y', '-qq', ...pkgs]) !== 0) reason = `${hint} failed`;
  }
  const after = missingDeps(probe, deps);
  if (after.length > 0 && reason === null) {
    reason = after.some((d) => !installable.includes(d))
      ? `CHROMIUM_PATH points at ${probe.env.CHROMIUM_PATH}, which does not exist (unset it to use ${DEFAULT_CHROMIUM})`
      : `${hint} did not provide them`;
  }
  return {
    installed: before.filter((d) => !after.includes(d)).map((d) => d.pkg),
    missing: after,
    hint: after.length
      ? installHint(
          after.map((d) => d.pkg),
          host.isRoot,
        )
      : '',
    reason,
  };
}
