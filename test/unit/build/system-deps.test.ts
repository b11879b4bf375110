// The test runner's set-up of system packages, over a fake machine: what is missing, how apt-get
// is reached (root, sudo, sudo -n, not at all), and what is left when it cannot install.
import { describe, expect, it } from 'vitest';
import { aptAccess, ensureSystemDeps, installHint, missingDeps, SYSTEM_DEPS } from '../../../scripts/system-deps.mjs';

/** A machine with some commands and files; a successful `apt-get install` adds what the packages provide. */
function machine(opts: { commands?: string[]; files?: string[]; env?: Record<string, string>; aptFails?: boolean }) {
  const commands = new Set(opts.commands ?? []);
  const files = new Set(opts.files ?? []);
  const provides: Record<string, () => void> = {
    chromium: () => files.add('/usr/bin/chromium'),
    dbus: () => commands.add('dbus-run-session'),
    'gnome-keyring': () => commands.add('gnome-keyring-daemon'),
    curl: () => commands.add('curl'),
    prometheus: () => commands.add('prometheus'),
    'prometheus-alertmanager': () => commands.add('prometheus-alertmanager'),
    postgresql: () => files.add(PG_INITDB),
  };
  const ran: string[][] = [];
  const probe = { env: opts.env ?? {}, which: (c: string) => commands.has(c), exists: (f: string) => files.has(f) };
  const run = (argv: string[]) => {
    ran.push(argv);
    const i = argv.indexOf('install');
    if (i === -1) return 0;
    if (opts.aptFails) return 100;
    for (const pkg of argv.slice(i + 1).filter((a) => !a.startsWith('-'))) provides[pkg]?.();
    return 0;
  };
  return { probe, run, ran };
}

const ENGINES = ['prometheus', 'prometheus-alertmanager'];
/** Debian's Postgres binaries are off the PATH. */
const PG_INITDB = '/usr/lib/postgresql/15/bin/initdb';
const ALL = {
  commands: ['dbus-run-session', 'gnome-keyring-daemon', 'curl', ...ENGINES],
  files: ['/usr/bin/chromium', PG_INITDB],
};
const APT = ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
const quiet = () => undefined;

describe('system packages for the tests', () => {
  it('finds what is missing, honouring CHROMIUM_PATH', () => {
    const m = machine({ commands: ['curl'], files: ['/opt/chrome'] });
    expect(missingDeps(m.probe).map((d) => d.pkg)).toEqual([
      'chromium',
      'dbus',
      'gnome-keyring',
      'prometheus',
      'prometheus-alertmanager',
      'postgresql',
    ]);
    const custom = machine({ ...ALL, files: ['/opt/chrome', PG_INITDB], env: { CHROMIUM_PATH: '/opt/chrome' } });
    expect(missingDeps(custom.probe)).toEqual([]);
    expect(SYSTEM_DEPS.map((d) => d.pkg)).toEqual([
      'chromium',
      'dbus',
      'gnome-keyring',
      'curl',
      'prometheus',
      'prometheus-alertmanager',
      'postgresql',
    ]);
  });

  it('reaches apt-get directly as root, through sudo otherwise (sudo -n with no terminal), or says why not', () => {
    expect(aptAccess({ isRoot: true, hasAptGet: true, hasSudo: false, interactive: false })).toEqual({ prefix: [] });
    expect(aptAccess({ isRoot: false, hasAptGet: true, hasSudo: true, interactive: true })).toEqual({
      prefix: ['sudo'],
    });
    expect(aptAccess({ isRoot: false, hasAptGet: true, hasSudo: true, interactive: false })).toEqual({
      prefix: ['sudo', '-n'],
    });
    expect(aptAccess({ isRoot: false, hasAptGet: true, hasSudo: false, interactive: true })).toEqual({
      reason: expect.stringMatching(/not running as root and sudo/),
    });
    expect(aptAccess({ isRoot: true, hasAptGet: false, hasSudo: true, interactive: true })).toEqual({
      reason: expect.stringMatching(/apt-get is not available/),
    });
    expect(installHint(['chromium', 'dbus'], false)).toBe('sudo apt-get install -y chromium dbus');
    expect(installHint(['curl'], true)).toBe('apt-get install -y curl');
  });

  it('does nothing when everything is there', () => {
    const m = machine(ALL);
    expect(
      ensureSystemDeps({
        probe: m.probe,
        run: m.run,
        log: quiet,
        host: { isRoot: true, hasAptGet: true, hasSudo: false, interactive: false },
      }),
    ).toMatchObject({ installed: [], missing: [] });
    expect(m.ran).toEqual([]);
  });

  it('as root installs the missing packages non-interactively and finds them afterwards', () => {
    const m = machine({ commands: ['curl'] });
    const r = ensureSystemDeps({
      probe: m.probe,
      run: m.run,
      log: quiet,
      host: { isRoot: true, hasAptGet: true, hasSudo: false, interactive: false },
    });
    expect(m.ran).toEqual([
      [...APT, 'update', '-qq'],
      [
        ...APT,
        'install',
        '-y',
        '-qq',
        'chromium',
        'dbus',
        'gnome-keyring',
        'prometheus',
        'prometheus-alertmanager',
        'postgresql',
      ],
    ]);
    expect(r).toMatchObject({
      installed: ['chromium', 'dbus', 'gnome-keyring', 'prometheus', 'prometheus-alertmanager', 'postgresql'],
      missing: [],
      reason: null,
    });
  });

  it('not root: goes through sudo -n when no one can type a password', () => {
    const m = machine({ ...ALL, commands: ['dbus-run-session', 'gnome-keyring-daemon', ...ENGINES] });
    const r = ensureSystemDeps({
      probe: m.probe,
      run: m.run,
      log: quiet,
      host: { isRoot: false, hasAptGet: true, hasSudo: true, interactive: false },
    });
    expect(m.ran[1]).toEqual(['sudo', '-n', ...APT, 'install', '-y', '-qq', 'curl']);
    expect(r.installed).toEqual(['curl']);
  });

  it('without root or sudo runs nothing and names the command to run', () => {
    const m = machine({ commands: ['curl', ...ENGINES], files: ['/usr/bin/chromium', PG_INITDB] });
    const r = ensureSystemDeps({
      probe: m.probe,
      run: m.run,
      log: quiet,
      host: { isRoot: false, hasAptGet: true, hasSudo: false, interactive: true },
    });
    expect(m.ran).toEqual([]);
    expect(r.missing.map((d) => d.pkg)).toEqual(['dbus', 'gnome-keyring']);
    expect(r.hint).toBe('sudo apt-get install -y dbus gnome-keyring');
    expect(r.reason).toMatch(/sudo is not available/);
  });

  it('when apt-get fails, reports the packages still missing and the command that failed', () => {
    const m = machine({ ...ALL, commands: ['curl', 'dbus-run-session', ...ENGINES], aptFails: true });
    const r = ensureSystemDeps({
      probe: m.probe,
      run: m.run,
      log: quiet,
      host: { isRoot: true, hasAptGet: true, hasSudo: false, interactive: false },
    });
    expect(r.missing.map((d) => d.pkg)).toEqual(['gnome-keyring']);
    expect(r.reason).toBe('apt-get install -y gnome-keyring failed');
  });

  it('does not try apt for a CHROMIUM_PATH of its own that is missing', () => {
    const m = machine({ ...ALL, env: { CHROMIUM_PATH: '/opt/chrome' } });
    const r = ensureSystemDeps({
      probe: m.probe,
      run: m.run,
      log: quiet,
      host: { isRoot: true, hasAptGet: true, hasSudo: false, interactive: false },
    });
    expect(m.ran).toEqual([]);
    expect(r.missing.map((d) => d.pkg)).toEqual(['chromium']);
    expect(r.reason).toMatch(/CHROMIUM_PATH/);
  });
});
