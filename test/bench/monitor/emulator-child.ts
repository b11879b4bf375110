// The emulator for the monitor bench, in its own process (its CPU is not the monitor's): one team,
// N connected agents, on 127.0.0.1 port 0. Prints {"type":"ready","baseUrl"} and runs until the
// parent closes stdin or sends SIGTERM.
import { startEmulator } from '../../../src-main/emulator';
import { emit, emulatorArgsSchema, exitWithParent, parseArg } from './child-common';

const args = parseArg(emulatorArgsSchema);
const emu = await startEmulator({
  port: 0,
  host: '127.0.0.1',
  seed: {
    teams: [
      {
        id: args.teamId,
        apiKey: args.apiKey,
        agents: args.agentIds.map((agentId, i) => ({
          agentId,
          state: 'connected' as const,
          phone: `1555${String(1_000_000 + i).padStart(7, '0')}`,
        })),
      },
    ],
  },
});
exitWithParent(() => emu.close());
emit({ type: 'ready', baseUrl: emu.baseUrl, controlUrl: emu.controlUrl });
