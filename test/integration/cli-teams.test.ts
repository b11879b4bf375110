// Saved teams against the emulator: `team add` checks the key for real (good key stored in the
// secret store, bad key → exit 4 with nothing stored), then `status --team` and `send --team`.
// The API key appears in no output line and in no file under the config folder.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src-main/emulator';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { runCli, type CliRun } from '../helpers/cli';
import { DEMO_KEY, state } from '../helpers/emulator';
import { emulatorSuite } from '../helpers/emulator-suite';

let emu: Emulator;
let dir: string;
const store = new MemorySecretStore();
const outputs: CliRun[] = [];

async function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const r = await runCli(args, { env, configDir: dir, secretStore: store });
  outputs.push(r);
  return r;
}

async function filesText(root: string): Promise<string> {
  let text = '';
  for (const e of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) text += await readFile(join(e.parentPath, e.name), 'utf8');
  }
  return text;
}

emulatorSuite('cc-cli-teamStore-', (s) => ({ emu, dir } = s));

describe('saved teams against the emulator', () => {
  it('a wrong key → exit 4, the config unchanged and the secret store empty', async () => {
    const r = await cli(['team', 'add', '--label', 'Demo', '--base-url', emu.baseUrl, '--agent', 'agent-connected'], {
      CHANNEL_API_KEY: 'wrong-key-0123456789',
    });
    expect(r.code).toBe(4);
    // Said once: the service's words, then what to do (not "rejected" again).
    expect(r.stderr.match(/rejected/g), r.stderr).toHaveLength(1);
    expect(store.snapshot()).toEqual({});
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')).teams).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain('wrong-key-0123456789');
  });

  it('an unknown agent → exit 3, nothing stored', async () => {
    const r = await cli(['team', 'add', '--label', 'Demo', '--base-url', emu.baseUrl, '--agent', 'agent-nope'], {
      CHANNEL_API_KEY: DEMO_KEY,
    });
    expect(r.code).toBe(3);
    expect(store.snapshot()).toEqual({});
  });

  it('the good key is checked and stored in the secret store only', async () => {
    const r = await cli(
      [
        'team',
        'add',
        '--label',
        'Demo',
        '--base-url',
        emu.baseUrl,
        '--agent',
        'agent-connected',
        '--agent',
        'agent-unlinked',
        '--json',
      ],
      { CHANNEL_API_KEY: DEMO_KEY },
    );
    expect(r.code, r.stderr).toBe(0);
    // The contract's TeamDTO, as Settings reads it.
    expect(r.json()[0]).toMatchObject({
      label: 'Demo',
      baseUrl: emu.baseUrl,
      keyHint: `…${DEMO_KEY.slice(-4)}`,
      agentIds: ['agent-connected', 'agent-unlinked'],
    });
    expect(Object.values(store.snapshot())).toEqual([DEMO_KEY]);
    const list = await cli(['team', 'list', '--json']);
    expect(list.json()).toEqual([r.json()[0]]);
    const human = await cli(['team', 'list']);
    expect(human.stdout).toContain(`  - agent-connected\n  - agent-unlinked`);
  });

  it('the key from the variable --api-key-env names; a locked keychain → its message, exit 1, nothing saved', async () => {
    const other = new MemorySecretStore();
    const folder = join(dir, 'other');
    const run = (env: Record<string, string>) =>
      runCli(
        [
          'team',
          'add',
          '--label',
          'Other',
          '--base-url',
          emu.baseUrl,
          '--agent',
          'agent-connected',
          '--api-key-env',
          'OTHER_KEY',
        ],
        { env, configDir: folder, secretStore: other },
      );
    other.state = 'locked';
    const locked = await run({ OTHER_KEY: DEMO_KEY });
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(/keychain is locked/);
    other.state = 'ok';
    expect(other.snapshot()).toEqual({});
    const ok = await run({ OTHER_KEY: DEMO_KEY });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('saved team Other');
    expect(Object.values(other.snapshot())).toEqual([DEMO_KEY]);
    for (const r of [locked, ok]) expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
  });

  it('team edit changes the label in place through the companion: the same id', async () => {
    const [before] = (await cli(['team', 'list', '--json'])).json();
    const r = await cli(['team', 'edit', 'Demo', '--label', 'Support', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()[0]).toMatchObject({ teamId: before!.teamId, label: 'Support' });
    const back = await cli(['team', 'edit', before!.teamId as string, '--label', 'Demo']);
    expect(back.code, back.stderr).toBe(0);
  });

  it('status --team reads the session with the stored key (the environment holds no key)', async () => {
    const r = await cli(['status', '--team', 'Demo', '--agent', 'agent-connected', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()[0]).toMatchObject({ agentId: 'agent-connected', health: 'connected', connected: true });
    const u = await cli(['status', '--team', 'demo', '--agent', 'agent-unlinked']);
    expect(u.code).toBe(0);
    expect(u.stdout).toMatch(/^agent-unlinked: Needs a QR scan/);
  });

  it('send --team … --json → "status":"sent", and the emulator has the message', async () => {
    const r = await cli([
      'send',
      '--team',
      'Demo',
      '--agent',
      'agent-connected',
      '--to',
      '+15550102000',
      '--text',
      'hi from a saved team',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"status":"sent"');
    const [res] = r.json();
    expect((await state(emu)).sentMessages.map((m) => m.messageId)).toContain(res!.messageId);
  });

  it('agent add checks with the stored key; team remove empties the secret store', async () => {
    const bad = await cli(['agent', 'add', '--team', 'Demo', '--agent', 'agent-ghost']);
    expect(bad.code).toBe(3);
    const ok = await cli(['agent', 'add', '--team', 'Demo', '--agent', 'agent-flaky', '--label', 'Flaky']);
    expect(ok.code).toBe(0);
    expect((await cli(['agent', 'list', '--team', 'Demo', '--json'])).json().map((a) => a.agentId)).toEqual([
      'agent-connected',
      'agent-unlinked',
      'agent-flaky',
    ]);
    const rm1 = await cli(['team', 'remove', 'Demo']);
    expect(rm1.code).toBe(0);
    expect(store.snapshot()).toEqual({});
  });

  it('the API key appeared in no output line and is in no file under the config folder', async () => {
    for (const r of outputs) expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
    expect(await filesText(dir)).not.toContain(DEMO_KEY);
  });
});
