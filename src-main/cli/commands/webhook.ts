// `webhook set|history|restore|secret`: the webhook inbound messages are delivered to. With --team they
// are requests to the companion of the data folder (webhook.register, webhook.history, webhook.restore,
// webhook.revealSecret: the Tunnel screen's), which keeps the signing secret in the keychain, records the
// registration and holds the agent's early deliveries while it registers; with none running, one is started
// for the command.
// - set: registers a URL after asking at the terminal (--yes skips; without a terminal it refuses unless
//   --yes): the service keeps one URL per agent, so the one it had stops receiving, and a new signing secret
//   is issued, printed only with --show-secret or written to --secret-file (mode 0600). Given by --base-url
//   and a key from the environment (no saved team), it registers directly (the app's registerAgentWebhook)
//   and records the registration in the data folder's history.
// - history: this install's registrations of the agent (URL, when, from which command or screen).
// - restore: registers the previous URL of the history again; the app behind it needs the new secret.
// - secret: the hint of the agent's stored signing secret; --reveal prints it, at a terminal only.
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { registerAgentWebhook, signingHint } from '../../app/usecases/webhooks';
import {
  hasRedactedCredentials,
  REGISTRATION_SOURCES,
  takeoverQuestion,
  when,
} from '../../app/usecases/registration-status';
import { REGISTERING_DIR, RegistrationsInFlight } from '../../app/registrations';
import type { RegistrationHistory, RegistrationRecord } from '../../app/registrations';
import type { RegistrationEntryDTO } from '../../../src-shared/contract';
import { registrationSourceWords } from '../../../src-shared/words';
import type { ContractClient } from '../../app/client';
import { teamAgentOf, teamFlag, withCompanion } from '../companion-run';
import { teamsOf } from '../teams-context';
import { atTerminal, confirm } from '../confirm';
import { defineAction, type CliContext } from '../context';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { httpUrlSchema } from '../../app/url';
import { agentId, parseFlags } from '../flags';
import type { Output } from '../output';
import { addTargetOptions, type Target } from '../target';
import { registrationHistory, tunnelDataDir } from '../tunnel-support';
import { COMPANION_DATA_DIR_HELP, type CompanionSession } from '../companion';
import { HUB_FLAG_HELP, hubSelfUrl, hubUrlOf } from '../hub-client';
import { hookUrl } from '../../app/registrations';
import { addConfigDirOption } from './team';

const flagsSchema = z.looseObject({
  url: httpUrlSchema.optional(),
  registerUrl: z.union([z.literal('self'), httpUrlSchema]).optional(),
  secretFile: z.string().min(1, 'expected a file path').optional(),
  showSecret: z.boolean().optional(),
  yes: z.boolean().optional(),
  dataDir: z.string().min(1, 'expected a folder').optional(),
  configDir: z.string().min(1, 'expected a folder').optional(),
});

const teamFlags = z.looseObject({
  team: z.string().trim().min(1, 'expected a team id or label').max(200),
  agent: agentId.optional(),
  configDir: z.string().min(1, 'expected a folder').optional(),
  dataDir: z.string().min(1, 'expected a folder').optional(),
  yes: z.boolean().optional(),
  reveal: z.boolean().optional(),
});

const YES_HELP =
  'register without asking (needed without a terminal): the URL the agent had stops receiving, and a new signing secret is issued';

/** Reads the history, warning (never failing) when it had to be set aside. */
async function historyOf(
  out: Output,
  store: RegistrationHistory,
  teamId: string | null,
  agent: string,
): Promise<RegistrationRecord[]> {
  try {
    const { entries, problem } = await store.list(teamId, agent);
    if (problem) out.warn(problem);
    return entries;
  } catch (e) {
    out.warn(e instanceof Error ? e.message : String(e));
    return [];
  }
}

/** The agent's registrations by this install, as the companion keeps them; a history set aside is a warning. */
async function historyThrough(
  client: ContractClient,
  out: Output,
  t: { teamId: string; agentId: string },
): Promise<{ entries: RegistrationEntryDTO[]; previous: RegistrationEntryDTO | null }> {
  const h = await client.request('webhook.history', { teamId: t.teamId, agentId: t.agentId });
  if (h.problem) out.warn(h.problem);
  return h;
}

/** A history entry as the registration words take it. */
const asRecord = (t: { teamId: string; agentId: string }, e: RegistrationEntryDTO): RegistrationRecord => ({
  ...e,
  teamId: t.teamId,
  agentId: t.agentId,
});

/** Saves the secret to --secret-file (0600); the registration stands whatever happens here. */
async function saveSecretFile(ctx: CliContext, out: Output, file: string, secret: string): Promise<void> {
  const path = resolve(ctx.io.cwd, file);
  try {
    await writeFile(path, `${secret}\n`, { mode: 0o600 });
  } catch (e) {
    throw new CliFailure(
      `the webhook is set, but the secret could not be saved to ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      EXIT.failure,
      'SECRET_FILE',
    );
  }
  out.note(`signing secret saved to ${path}`);
}

/** A registration as `webhook set` prints it. */
interface Registered {
  mode: string;
  url: string;
  events?: string[];
  updatedAt?: string;
  secretHint: string;
  secret: string;
}

/**
 * Registers url for the target's agent (given by --base-url and a key: no saved team) after asking (or --yes), keeping the secret in the keychain
 * (a --team target) or with `keepOther`, and recording it in the history. null when the person said no.
 */
async function registerAsked(
  ctx: CliContext,
  out: Output,
  o: {
    target: Target;
    url: string;
    yes: boolean | undefined;
    history: RegistrationHistory;
    /** The receiver's data folder (its tunnel/ one), where the registration leaves its mark while it runs. */
    dataDir: string;
    source: string;
    keepOther?: (secret: string) => Promise<void>;
  },
): Promise<Registered | null> {
  const team = teamsOf(ctx).teamOf(o.target);
  const teamId = team?.teamId ?? null;
  const agent = o.target.agentId;
  const last = (await historyOf(out, o.history, teamId, agent))[0] ?? null;
  if (!(await confirm(ctx, takeoverQuestion(agent, o.url, last, ctx.clock.now()), o.yes))) return null;
  const keepInKeychain = teamsOf(ctx).signingSecretKeeper(o.target);
  let secret = '';
  const {
    registration: cfg,
    secretHint,
    historyProblem,
  } = await registerAgentWebhook({
    client: ctx.client(o.target),
    agentId: agent,
    url: o.url,
    signal: ctx.signal,
    history: { store: o.history, teamId, source: o.source, target: 'other' },
    // A `listen` (or the app) receiving on this data folder holds the agent's deliveries meanwhile.
    inFlight: new RegistrationsInFlight(join(o.dataDir, REGISTERING_DIR)),
    keepSecret: async (s) => {
      secret = s;
      await keepInKeychain?.(agent, s);
      await o.keepOther?.(s);
    },
  });
  if (historyProblem) out.warn(historyProblem);
  return { ...cfg, secretHint, secret };
}

/** The base URL --register-url names: the URL given, or "self": the hub's public URL. */
function registerBase(session: CompanionSession, given: string): string {
  return given === 'self' && session.hub ? hubSelfUrl(session.hub) : given;
}

export function register(program: Command, ctx: CliContext): void {
  const webhook = program
    .command('webhook')
    .description("the webhook inbound messages are delivered to, and this install's registrations of it");
  const cmd = addTargetOptions(
    webhook
      .command('set')
      .description('register the webhook URL (mode passthrough), asking first: the URL the agent had stops receiving'),
  );
  cmd
    .option('--url <url>', 'URL of the receiving app')
    .option(
      '--register-url <url>',
      'instead of --url: <url>/hooks/<agent>; "self" through a team\'s hub: the hub\'s public URL (its receiver)',
    )
    .option('--secret-file <path>', 'save the returned signing secret to this file (mode 0600)')
    .option('--show-secret', 'print the signing secret (it is otherwise shown only as a hint)')
    .option('--yes', YES_HELP)
    .option('--data-dir <dir>', COMPANION_DATA_DIR_HELP)
    .option('--hub <url>', HUB_FLAG_HELP)
    .option('--json', 'one JSON object on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    if ((f.url === undefined) === (f.registerUrl === undefined))
      throw new UsageError('give the URL to register: --url URL, or --register-url URL|self (<url>/hooks/<agent>)');
    const team = teamFlag(opts);
    if (f.registerUrl !== undefined && team === undefined)
      throw new UsageError('--register-url: name the saved team with --team (or give the whole URL with --url)');
    if (f.registerUrl === 'self' && hubUrlOf(ctx) === undefined)
      throw new UsageError(
        "--register-url self: the public URL of a team's hub, and this command works through none (set CHANNEL_HUB_URL or give --hub); give the URL with --url",
      );
    const r =
      team !== undefined
        ? await withCompanion(ctx, out, f, async (client, session) => {
            const t = await teamAgentOf(client, {
              team,
              agent: typeof opts.agent === 'string' ? opts.agent : undefined,
            });
            const url = f.url ?? hookUrl(registerBase(session, f.registerUrl!), t.agentId);
            const last = (await historyThrough(client, out, t)).entries[0];
            const question = takeoverQuestion(t.agentId, url, last ? asRecord(t, last) : null, ctx.clock.now());
            if (!(await confirm(ctx, question, f.yes))) return null;
            const reg = await client.request('webhook.register', {
              teamId: t.teamId,
              agentId: t.agentId,
              publicUrl: url,
              source: REGISTRATION_SOURCES.webhookSet,
            });
            // On a hub the secret stays there: it is asked for only to save or show it (an admin's reveal).
            if (session.hub && !f.secretFile && !f.showSecret) {
              out.note(
                `the hub keeps the new signing secret for team ${t.label}, agent ${t.agentId} (--secret-file PATH or --show-secret to have it here)`,
              );
              return { ...reg, secret: '', secretHint: 'kept by the hub' } as Registered;
            }
            // The secret stays with the companion; it is asked for here only to save or show it, or as a hint.
            const { secret } = await client.request('webhook.revealSecret', { teamId: t.teamId, agentId: t.agentId });
            out.note(
              `signing secret ${signingHint(secret)} stored in the keychain for team ${t.label}, agent ${t.agentId}`,
            );
            if (f.secretFile) await saveSecretFile(ctx, out, f.secretFile, secret);
            return { ...reg, secret, secretHint: signingHint(secret) } as Registered;
          })
        : await registerAsked(ctx, out, {
            target: await ctx.resolveTarget(opts),
            url: f.url!,
            yes: f.yes,
            history: registrationHistory(ctx, f),
            dataDir: tunnelDataDir(ctx, f),
            source: REGISTRATION_SOURCES.webhookSet,
            keepOther: async (secret) => {
              if (f.secretFile) await saveSecretFile(ctx, out, f.secretFile, secret);
            },
          });
    if (r === null) throw new CliFailure('nothing registered: not confirmed', EXIT.failure, 'NOT_CONFIRMED');
    const secretShown = f.showSecret ? r.secret : undefined;
    const data: Record<string, unknown> = { mode: r.mode, url: r.url, secretHint: r.secretHint };
    if (secretShown !== undefined) data.secret = secretShown;
    if (r.events) data.events = r.events;
    if (r.updatedAt) data.updatedAt = r.updatedAt;
    out.result(data, () =>
      [
        `webhook ${r.mode}: ${r.url}`,
        secretShown !== undefined
          ? `signing secret: ${secretShown}`
          : `signing secret ${r.secretHint} (use --secret-file PATH to save it, or --show-secret)`,
      ].join('\n'),
    );
  });

  const history = addConfigDirOption(
    webhook
      .command('history')
      .description(
        "this install's registrations of an agent's webhook, newest first (the service cannot tell whether another app registered since)",
      ),
  )
    .requiredOption('--team <team>', 'a saved team (id or label)')
    .option('--agent <id>', "the agent (id or label; default: the team's only agent)")
    .option('--data-dir <dir>', COMPANION_DATA_DIR_HELP)
    .option('--hub <url>', HUB_FLAG_HELP)
    .option('--json', 'one JSON object on stdout');
  defineAction(ctx, history, async (opts, out) => {
    const f = parseFlags(teamFlags, opts);
    const { t, h, hub } = await withCompanion(ctx, out, f, async (client, session) => {
      const t = await teamAgentOf(client, f);
      return {
        t,
        h: await client.request('webhook.history', { teamId: t.teamId, agentId: t.agentId }),
        hub: session.hub !== null,
      };
    });
    if (h.problem) out.warn(h.problem);
    const now = ctx.clock.now();
    const by = hub ? 'through the team hub' : 'by this install';
    out.result({ ...h }, () =>
      h.entries.length === 0
        ? `no registration of ${t.agentId} ${by}: where the service sends its deliveries is unknown (the service cannot tell us; another app may be receiving)`
        : [
            `registrations of ${t.agentId} (team ${t.label}) ${by}, newest first; another app may have registered since:`,
            ...h.entries.map((e) => `  ${when(e.at, now)}  ${e.url}  (${registrationSourceWords(e)})`),
          ].join('\n'),
    );
  });

  const restore = addConfigDirOption(
    webhook
      .command('restore')
      .description(
        'register the previous URL of the history again (asking first); the app behind it needs the new signing secret',
      ),
  )
    .requiredOption('--team <team>', 'a saved team (id or label): the new signing secret goes to the keychain')
    .option('--agent <id>', "the agent (id or label; default: the team's only agent)")
    .option('--yes', YES_HELP)
    .option('--data-dir <dir>', COMPANION_DATA_DIR_HELP)
    .option('--hub <url>', HUB_FLAG_HELP)
    .option('--json', 'one JSON object on stdout');
  defineAction(ctx, restore, async (opts, out) => {
    const f = parseFlags(teamFlags, opts);
    const r = await withCompanion(ctx, out, f, async (client, session) => {
      const t = await teamAgentOf(client, f);
      const { entries, previous: prev } = await historyThrough(client, out, t);
      if (!prev)
        throw new CliFailure(
          `no previous URL of ${t.agentId} in this install's history (see \`channel-companion webhook history\`)`,
          EXIT.failure,
          'NO_PREVIOUS_URL',
        );
      if (hasRedactedCredentials(prev.url))
        throw new CliFailure(
          `the previous URL ${prev.url} carried credentials (a user and password, query values or a token in its path), which the history does not keep: register it with \`channel-companion webhook set --url <url>\``,
          EXIT.failure,
          'CREDENTIALS_NOT_KEPT',
        );
      const last = entries[0] ? asRecord(t, entries[0]) : null;
      if (!(await confirm(ctx, takeoverQuestion(t.agentId, prev.url, last, ctx.clock.now()), f.yes))) return null;
      return {
        t,
        hub: session.hub,
        restored: await client.request('webhook.restore', {
          teamId: t.teamId,
          agentId: t.agentId,
          source: REGISTRATION_SOURCES.webhookRestore,
        }),
      };
    });
    if (r === null) throw new CliFailure('nothing registered: not confirmed', EXIT.failure, 'NOT_CONFIRMED');
    const { t, restored } = r;
    const how = `The new secret (${restored.secretHint}) is ${r.hub ? 'kept by the hub' : 'stored in the keychain'}; ${r.hub ? 'an admin shows it' : 'show it'} at a terminal with \`channel-companion webhook secret --team ${f.team} --agent ${t.agentId} --reveal\`.`;
    out.result({ ...restored }, () => [`webhook ${restored.mode}: ${restored.url}`, restored.words, how].join('\n'));
  });

  const secret = addConfigDirOption(
    webhook
      .command('secret')
      .description(
        "the agent's stored signing secret: its hint, or with --reveal the secret itself (at a terminal only)",
      ),
  )
    .requiredOption('--team <team>', 'a saved team (id or label)')
    .option('--agent <id>', "the agent (id or label; default: the team's only agent)")
    .option('--reveal', 'print the secret itself (refused without a terminal)')
    .option('--data-dir <dir>', COMPANION_DATA_DIR_HELP)
    .option('--hub <url>', HUB_FLAG_HELP)
    .option('--json', 'one JSON object on stdout');
  defineAction(ctx, secret, async (opts, out) => {
    const f = parseFlags(teamFlags, opts);
    if (f.reveal && !atTerminal(ctx))
      throw new UsageError(
        '--reveal prints the signing secret and is refused without a terminal (stdin is not a TTY); its hint is shown without --reveal',
      );
    const r = await withCompanion(ctx, out, f, async (client, session) => {
      const t = await teamAgentOf(client, f);
      // On a hub the secret stays there: asked for only to reveal it (an admin's, recorded), never for a hint.
      if (session.hub && !f.reveal) {
        const status = await client.request('tunnel.status', {});
        const held = status.agents.some((a) => a.teamId === t.teamId && a.agentId === t.agentId && a.hasSecret);
        return { t, current: null, held };
      }
      const current = (await client.request('webhook.revealSecret', { teamId: t.teamId, agentId: t.agentId })).secret;
      return { t, current, held: true };
    });
    const { t, current } = r;
    if (current === null) {
      out.result(
        { teamId: t.teamId, agentId: t.agentId, secretHint: r.held ? 'kept by the hub' : null },
        r.held
          ? `the hub keeps the signing secret of team ${t.label}, agent ${t.agentId} (an admin shows it with --reveal at a terminal; each reveal is recorded)`
          : `the hub holds no signing secret for team ${t.label}, agent ${t.agentId} (register its webhook: \`channel-companion webhook set --team ${f.team} --agent ${t.agentId} --register-url self\`)`,
      );
      return;
    }
    const data: Record<string, unknown> = { teamId: t.teamId, agentId: t.agentId, secretHint: signingHint(current) };
    if (f.reveal) data.secret = current;
    out.result(data, () =>
      f.reveal
        ? current
        : `signing secret ${signingHint(current)} stored in the keychain (show it with --reveal at a terminal)`,
    );
  });
}
