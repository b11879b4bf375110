// A companion over a temp folder for integration tests, called through its contract's handlers:
// startTestCompanion() for one (closed by the test), companionSuite() per test file beside the demo
// emulator (emulatorSuite) with the team 'Emulated' added, started before all tests and closed after.
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { AnyEvent } from '../../src-shared/contract';
import { createHandlers, type Handlers } from '../../src-main/app/handlers';
import { implementContract, type CompanionContract } from '../../src-main/app/contract';
import { createCompanion, type Companion, type CompanionOptions } from '../../src-main/app/companion/companion';
import { MemorySecretStore } from '../../src-main/core/secrets';
import { contractCaller } from './contract-call';
import { DEMO_KEY, waitFor } from './emulator';
import { emulatorSuite, type EmulatorSuite } from './emulator-suite';

type Caller = ReturnType<typeof contractCaller>;

export interface TestCompanion extends Caller {
  companion: Companion;
  contract: CompanionContract;
  handlers: Handlers;
  /** Disposes of the contract and closes the companion. */
  close(): Promise<void>;
}

export interface TestCompanionOptions extends CompanionOptions {
  /** Receives every contract event, from the start. */
  onEvent?: (e: AnyEvent) => void;
}

/**
 * A companion with its config and data folders under `dir`, secrets in memory, the monitor polling
 * once a minute and its receiver on any free port (each overridden by `opts`), its contract
 * implemented.
 */
export async function startTestCompanion(dir: string, opts: TestCompanionOptions = {}): Promise<TestCompanion> {
  const { onEvent, ...options } = opts;
  const companion = await createCompanion({
    configDir: path.join(dir, 'config'),
    dataDir: path.join(dir, 'data'),
    secrets: new MemorySecretStore(),
    poll: { intervalMs: 60_000 },
    // Any free port: test files run side by side, and the saved default port is one for all.
    tunnelPort: 0,
    ...options,
  });
  const contract = implementContract(companion);
  if (onEvent) contract.events.onAny(onEvent);
  const handlers = createHandlers(contract.implementations);
  return {
    companion,
    contract,
    handlers,
    ...contractCaller(() => handlers),
    async close() {
      contract.dispose();
      await companion.close();
    },
  };
}

/** Adds the team 'Emulated' (the emulator's demo key) with `agents`; answers its id. */
export async function addEmulatedTeam(
  ok: Caller['ok'],
  emu: { baseUrl: string },
  agents: Array<{ agentId: string; label?: string }>,
): Promise<string> {
  return (
    await ok<{ teamId: string }>('teams.add', { label: 'Emulated', baseUrl: emu.baseUrl, apiKey: DEMO_KEY, agents })
  ).teamId;
}

export interface CompanionSuite extends EmulatorSuite, TestCompanion {
  teamId: string;
}

export interface CompanionSuiteOptions {
  /** The agents of the team 'Emulated'. */
  agents: Array<{ agentId: string; label?: string }>;
  /** An agent whose webhook is registered at the receiver's hook URL (the receiver must be running: startTunnel). */
  register?: string;
  companion?: TestCompanionOptions;
}

/**
 * Registers the hooks: the emulator suite, then a companion in its folder with the team added.
 * Answers the calls and the events collected at once (usable from the first test); `use` receives
 * the started fixture (once, before the first test).
 */
export function companionSuite(
  tmpPrefix: string,
  opts: CompanionSuiteOptions,
  use: (s: CompanionSuite) => void = () => undefined,
): Caller & { events: AnyEvent[] } {
  const events: AnyEvent[] = [];
  let s: CompanionSuite | undefined;
  let base: EmulatorSuite | undefined;
  emulatorSuite(tmpPrefix, (e) => (base = e));
  beforeAll(async () => {
    const { onEvent, ...options } = opts.companion ?? {};
    const c = await startTestCompanion(base!.dir, {
      ...options,
      onEvent: (e) => {
        events.push(e);
        onEvent?.(e);
      },
    });
    s = { ...base!, ...c, teamId: '' };
    s.teamId = await addEmulatedTeam(c.ok, base!.emu, opts.agents);
    if (opts.register) {
      const listenUrl = await waitFor(
        async () => (await c.ok<{ listenUrl: string | null }>('tunnel.status')).listenUrl,
        5000,
      );
      await c.ok('webhook.register', {
        teamId: s.teamId,
        agentId: opts.register,
        publicUrl: `${listenUrl}/hooks/${opts.register}`,
      });
    }
    use(s);
  });
  afterAll(async () => {
    await s?.close();
  });
  return { ...contractCaller(() => s!.handlers), events };
}
