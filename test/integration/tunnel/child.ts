// A tunnel in its own process, for the SIGKILL test. Config from the environment:
//   TUNNEL_DATA_DIR, TUNNEL_PORT (0 = any), TUNNEL_FORWARD_BASE (agent X goes to <base>/X),
//   TUNNEL_SECRETS (JSON {agentId: [secret]}).
// Prints one JSON line {"url","port"} on stdout once listening; SIGTERM stops it cleanly.
import { Tunnel } from '../../../src-main/core/tunnel';

const secrets = JSON.parse(process.env.TUNNEL_SECRETS ?? '{}') as Record<string, string[]>;
const tunnel = new Tunnel({
  dataDir: process.env.TUNNEL_DATA_DIR!,
  getSecrets: async (agentId) => secrets[agentId] ?? [],
  forward: {
    perAgent: Object.fromEntries(Object.keys(secrets).map((a) => [a, `${process.env.TUNNEL_FORWARD_BASE}/${a}`])),
    backoff: { baseMs: 50, maxMs: 400, jitter: 0 },
    timeoutMs: 2_000,
  },
});
const { url, port } = await tunnel.start({ port: Number(process.env.TUNNEL_PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ url, port })}\n`);
process.on('SIGTERM', () => {
  void tunnel.stop().then(() => process.exit(0));
});
