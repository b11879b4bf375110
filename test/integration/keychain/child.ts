// Runs one keychain operation in its own process, against the real OS keychain, and prints one
// line: "@@RESULT {json}". Driven by test/integration/keychain.test.ts inside a private
// dbus-run-session. Secrets come in through the CC_SECRET environment variable, never argv.
import { TeamStore } from '../../../src-main/core/teams';
import type { ServiceClient } from '../../../src-main/core/api/service';
import { KeychainSecretStore } from '../../../src-main/core/secrets';
import { openSync } from 'node:fs';

const [op = '', arg = ''] = process.argv.slice(2);
const secret = process.env.CC_SECRET ?? '';
const configDir = process.env.CC_CONFIG_DIR ?? '';
const store = new KeychainSecretStore({ timeoutMs: 15_000 });
// CC_OPEN_FDS: files held open first, as a busy process holds sockets (a team of a thousand agents).
for (let i = 0; i < Number(process.env.CC_OPEN_FDS ?? 0); i++) openSync('/dev/null', 'r');

/** A service that accepts any key for agent-1; nothing is ever sent over the network. */
const clientFactory = ({ baseUrl }: { baseUrl: string; apiKey: string }) =>
  ({
    baseUrl,
    getSession: async () => ({
      connected: true,
      linked: true,
      state: 'connected',
      needsScan: false,
      phone: null,
      qr: null,
    }),
    close: async () => undefined,
  }) as unknown as ServiceClient;

async function run(): Promise<unknown> {
  switch (op) {
    case 'set':
      return store.set(arg, secret).then(() => null);
    case 'get':
      return store.get(arg);
    case 'delete':
      return store.delete(arg);
    case 'probe':
      return store.probe().then(() => null);
    case 'add-team': {
      const a = await TeamStore.open({ configDir, secrets: store, clientFactory });
      const t = await a.addTeam({
        label: arg,
        baseUrl: 'http://127.0.0.1:9/',
        apiKey: secret,
        agents: [{ agentId: 'agent-1' }],
      });
      await a.setSigningSecret(t.id, 'agent-1', `${secret}-signing`);
      return t;
    }
    case 'get-api-key': {
      const a = await TeamStore.open({ configDir, secrets: store, clientFactory });
      return a.getApiKey(arg);
    }
    case 'remove-team': {
      const a = await TeamStore.open({ configDir, secrets: store, clientFactory });
      return a.removeTeam(arg).then(() => null);
    }
    default:
      throw new Error(`unknown op ${op}`);
  }
}

run().then(
  (value) => console.log(`@@RESULT ${JSON.stringify({ op, ok: true, value })}`),
  (err: unknown) => {
    const e = err as Error & { kind?: string; code?: string; cause?: { name?: string; kind?: string } };
    console.log(
      `@@RESULT ${JSON.stringify({ op, ok: false, name: e.name, kind: e.kind ?? e.cause?.kind, code: e.code, causeName: e.cause?.name, message: e.message })}`,
    );
  },
);
