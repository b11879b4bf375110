// What the browser specs against a team hub share: a command of the CLI run to its end, the hub's members and
// their tokens, a hub replica on the test's Postgres, and a message the service delivers (signed with the agent's secret) to a replica's /hooks.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { expect } from '@playwright/test';
import { signDelivery } from '../../../src-main/core/signature';
import { REPO, startCommand, type RunningServe, type ServeHome } from './serve';

const CLI = path.join(REPO, 'bin/channel-companion.mjs');

/** `channel-companion ARGS` run to its end in `env`: its stdout (it must exit 0; else an error with its stderr). */
export function runCommand(args: string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** `hub member add NAME --role ROLE --json` for each member (in `env`: the hub's database): their tokens by name. */
export function addMembers(
  env: NodeJS.ProcessEnv,
  members: readonly (readonly [string, string])[],
): Record<string, string> {
  const tokens: Record<string, string> = {};
  for (const [name, role] of members)
    tokens[name] = (
      JSON.parse(runCommand(['hub', 'member', 'add', name, '--role', role, '--json'], env)) as { token: string }
    ).token;
  return tokens;
}

/** `hub --json` with the home's config and data folders (polling every `pollSec` when given), once it is ready. */
export async function startHub(
  home: ServeHome,
  env: NodeJS.ProcessEnv,
  o: { publicUrl: string; pollSec?: number; timeoutMs?: number },
): Promise<{ hub: RunningServe; origin: string }> {
  const hub = await startCommand(
    [
      'hub',
      '--json',
      ...(o.pollSec !== undefined ? ['--poll-sec', String(o.pollSec)] : []),
      '--public-url',
      o.publicUrl,
      '--config-dir',
      home.configDir,
      '--data-dir',
      home.dataDir,
    ],
    env,
    o.timeoutMs,
  );
  return { hub, origin: (hub.ready as unknown as { origin: string }).origin };
}

/** The service's delivery of a text message from `from` to the agent, signed with its secret, to a replica: a 200. */
export async function deliverText(
  origin: string,
  agentId: string,
  secret: string,
  from: string,
  text: string,
): Promise<void> {
  const body = JSON.stringify({
    event: 'message.received',
    from,
    message: { id: `m-${randomBytes(6).toString('hex')}`, type: 'text', text, fromMe: false },
    timestamp: Math.floor(Date.now() / 1000),
  });
  const res = await fetch(`${origin}/hooks/${agentId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signDelivery(secret, body, Math.floor(Date.now() / 1000)) },
    body,
  });
  expect(res.status, await res.text()).toBe(200);
}
