// Shared by `listen`, `trigger` and `deliveries`: the tunnel's data folder, where signing secrets
// come from (--secret-env, --secret, or a saved team's keychain entries) and how a delivery or a
// forward attempt is shown. Secrets are never printed.
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { REFUSED_WORDS, verdictWords } from '../../src-shared/words';
import { TeamStore } from '../app/teams';
import { RegistrationHistory } from '../app/registrations';
import type { ForwardAttempt, RefusedRequest, StoredDelivery, Tunnel } from '../app/tunnel';
import { teamsOf } from './teams-context';
import type { CliContext } from './context';
import { CliFailure, UsageError } from './errors';
import { EXIT } from './exit-codes';
import { envVarName, teamName } from './flags';
import type { Output } from './output';

export const secretFlags = {
  secret: z.string().min(1, 'the secret is empty').optional(),
  secretEnv: envVarName.optional(),
  team: teamName.optional(),
  configDir: z.string().min(1, 'expected a folder').optional(),
  dataDir: z.string().min(1, 'expected a folder').optional(),
};

export const oneSecretSource: [
  (f: { secret?: string | undefined; secretEnv?: string | undefined }) => boolean,
  { message: string; path: string[] },
] = [
  (f) => !(f.secret !== undefined && f.secretEnv !== undefined),
  { message: 'give either --secret or --secret-env, not both', path: ['secret'] },
];

export const DATA_DIR_HELP =
  'data folder, as for `serve` (default: <config dir>/data); the log is in its tunnel/ subfolder';

/** <data dir>/tunnel, the data dir being --data-dir or <config dir>/data — the app's own log (the config dir never touches the keychain). */
export function tunnelDataDir(
  ctx: CliContext,
  f: { dataDir?: string | undefined; configDir?: string | undefined },
): string {
  const data =
    f.dataDir !== undefined ? resolve(ctx.io.cwd, f.dataDir) : join(teamsOf(ctx).configDir(f.configDir), 'data');
  return join(data, 'tunnel');
}

/** The registration history of the data folder (the one `listen` and the app use): <data dir>/webhook-registrations.json. */
export function registrationHistory(
  ctx: CliContext,
  f: { dataDir?: string | undefined; configDir?: string | undefined },
): RegistrationHistory {
  return RegistrationHistory.in(dirname(tunnelDataDir(ctx, f)), () => ctx.clock.now());
}

/** The secret given on the command line (--secret-env preferred), or undefined. */
export function explicitSecret(
  ctx: CliContext,
  out: Output,
  f: { secret?: string | undefined; secretEnv?: string | undefined },
): string | undefined {
  if (f.secretEnv !== undefined) {
    const v = ctx.io.env[f.secretEnv];
    if (!v)
      throw new UsageError(`the environment variable ${f.secretEnv} is not set (it should hold the signing secret)`);
    return v;
  }
  if (f.secret !== undefined) {
    out.warn(SECRET_FLAG_WARNING);
    return f.secret;
  }
  return undefined;
}

export const SECRET_FLAG_HELP =
  'the signing secret (visible in the process list and shell history; prefer --secret-env)';
const SECRET_FLAG_WARNING =
  '--secret is visible to every user of this machine in the process list (ps) while this runs, and lands in your shell history; prefer --secret-env NAME';

/** Opens the tunnel as the data dir's one writer; another writer holding it, or a data dir it cannot write, is a plain failure (exit 1). */
export async function openTunnel(tunnel: Tunnel, dataDir: string): Promise<void> {
  const { TunnelError, ensurePrivateDir } = await import('../app/tunnel');
  try {
    // The data folder holding the tunnel's (chat transcripts and timelines live there too) is private as well.
    await ensurePrivateDir(dirname(dataDir));
    await tunnel.open();
  } catch (e) {
    if (e instanceof TunnelError && e.code === 'locked') throw new CliFailure(e.message, EXIT.failure, 'LOCKED');
    if (e instanceof TunnelError && e.code === 'storage-failed')
      throw new CliFailure(e.message, EXIT.failure, 'STORAGE_FAILED');
    throw e;
  }
}

/**
 * getSecrets for the tunnel: the explicit secret first, then (with --team) the agent's secrets read
 * afresh from the config and keychain at each call — so a secret rotated meanwhile (by
 * `webhook set --team` or the app) is picked up — then secrets learnt during this run.
 */
export function secretSource(
  ctx: CliContext,
  opts: { explicit?: string | undefined; teamId?: string | undefined; configDir?: string | undefined },
): { getSecrets(agentId: string): Promise<string[]>; remember(agentId: string, secret: string): void } {
  const learnt = new Map<string, string>();
  const ca = teamsOf(ctx);
  return {
    remember: (agentId, secret) => void learnt.set(agentId, secret),
    async getSecrets(agentId) {
      const out: string[] = [];
      if (opts.explicit !== undefined) out.push(opts.explicit);
      const l = learnt.get(agentId);
      if (l !== undefined) out.push(l);
      if (opts.teamId !== undefined) {
        const teamStore = await TeamStore.open({
          configDir: ca.configDir(opts.configDir),
          secrets: ca.secrets(),
          clock: ctx.clock,
          clientFactory: () => {
            throw new Error('no service calls here');
          },
        });
        try {
          out.push(...(await teamStore.getSigningSecrets(opts.teamId, agentId)));
        } catch {
          // Agent not in the team (or keychain failure): the verdict says no secret is configured.
        } finally {
          await teamStore.close();
        }
      }
      return [...new Set(out)];
    },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function deliveryData(d: StoredDelivery): Record<string, unknown> {
  return {
    id: d.id,
    agentId: d.agentId,
    receivedAt: iso(d.receivedAt),
    ok: d.verdict.ok,
    verdict: d.verdict.reason,
    scheme: d.verdict.scheme,
    note: d.verdict.note ?? null,
    eventType: d.summary.event,
    from: d.summary.from,
    type: d.summary.type,
    messageId: d.summary.messageId,
    simulated: d.simulated === true,
    forward: d.forward,
  };
}

const NOTES = {
  'not-json': 'the body is not JSON',
  'utf8-bom': 'the body starts with a UTF-8 byte order mark',
} as const;

export function deliveryLine(d: StoredDelivery): string {
  const s = d.summary;
  const note = d.verdict.note ? ` (note: ${NOTES[d.verdict.note]})` : '';
  return `${iso(d.receivedAt)} ${d.id} ${d.agentId}: ${verdictWords(d.verdict.reason)}${note} ${s.event ?? '-'}${s.type ? ` ${s.type}` : ''}${s.from ? ` from +${s.from}` : ''}${d.simulated ? ' (simulated)' : ''}${d.forward ? '' : ' — not forwarded'}`;
}

export function refusedData(r: RefusedRequest): Record<string, unknown> {
  return { ...r, at: iso(r.at) };
}

/** One line per refused request; the detail's first line says why. */
export function refusedLine(r: RefusedRequest): string {
  // The detail is the verification steps, one a line; the last one says why it was refused.
  const why = r.detail.slice(r.detail.lastIndexOf('\n') + 1);
  return `${iso(r.at)} ${REFUSED_WORDS[r.reason] ?? r.reason} (${r.status}) ${r.method || '-'} ${r.path || '-'} from ${r.from}${r.size ? ` (${r.size} bytes)` : ''}: ${why}`;
}

export function attemptData(a: ForwardAttempt): Record<string, unknown> {
  const data: Record<string, unknown> = {
    deliveryId: a.deliveryId,
    attemptId: a.id,
    url: a.url,
    ok: a.status !== null && a.status >= 200 && a.status <= 299,
    status: a.status,
    error: a.error,
    durationMs: a.durationMs,
  };
  if (a.replay) data.replay = a.replay;
  if (a.resigned) data.resigned = true;
  return data;
}

export function attemptLine(a: ForwardAttempt): string {
  const result = a.status !== null ? `${a.status}` : `failed (${a.error ?? 'no answer'})`;
  return `  → ${a.replay ? `replay ${a.replay} ` : 'forward '}${a.deliveryId} to ${a.url}: ${result} in ${Math.round(a.durationMs)} ms${a.resigned ? ' (re-signed)' : ''}`;
}
