// `webhook set|history|restore|secret`: the webhook inbound messages are delivered to.
// - set: registers a URL (the app's registerAgentWebhook, as the app and `listen` do), after asking
//   at the terminal (--yes skips; without a terminal it refuses unless --yes): the service keeps
//   one URL per agent, so the one it had stops receiving, and a new signing secret is issued. The
//   secret is stored in the keychain for a --team target, printed only with --show-secret, or
//   written to --secret-file (mode 0600). Every registration is added to the history.
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
  previousRegistration,
  REGISTRATION_SOURCES,
  restoredWords,
  takeoverQuestion,
  when,
} from '../../app/usecases/registration-status';
import { REGISTERING_DIR, RegistrationsInFlight } from '../../core/tunnel/in-flight';
import type { RegistrationHistory, RegistrationRecord } from '../../core/tunnel/registration-history';
import { teamsOf, withTeams } from '../teams-context';
import { atTerminal, confirm } from '../confirm';
import { defineAction, type CliContext } from '../context';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { httpUrlSchema } from '../../core/url';
import { agentId, parseFlags } from '../flags';
import type { Output } from '../output';
import { addTargetOptions, type Target } from '../target';
import { DATA_DIR_HELP, registrationHistory, tunnelDataDir } from '../tunnel-support';
import { addConfigDirOption } from './team';

const flagsSchema = z.looseObject({
  url: httpUrlSchema,
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

function entryData(e: RegistrationRecord): Record<string, unknown> {
  return { url: e.url, at: new Date(e.at).toISOString(), source: e.source, target: e.target };
}

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

/** The saved team and agent of a --team command that needs no service call. */
async function teamAgent(
  ctx: CliContext,
  f: z.output<typeof teamFlags>,
): Promise<{ teamId: string; label: string; agentId: string }> {
  const { team } = await teamsOf(ctx).team(f.team, f.configDir);
  return { teamId: team.id, label: team.label, agentId: teamsOf(ctx).agentOf(team, f.agent) };
}

/**
 * Registers url for the target's agent after asking (or --yes), keeping the secret in the keychain
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
): Promise<{
  mode: string;
  url: string;
  events?: string[];
  updatedAt?: string;
  secretHint: string;
  secret: string;
  teamId: string | null;
} | null> {
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
  return { ...cfg, secretHint, secret, teamId };
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
    .requiredOption('--url <url>', 'URL of the receiving app')
    .option('--secret-file <path>', 'save the returned signing secret to this file (mode 0600)')
    .option('--show-secret', 'print the signing secret (it is otherwise shown only as a hint)')
    .option('--yes', YES_HELP)
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option('--json', 'one JSON object on stdout');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const target = await ctx.resolveTarget(opts);
    const r = await registerAsked(ctx, out, {
      target,
      url: f.url,
      yes: f.yes,
      history: registrationHistory(ctx, f),
      dataDir: tunnelDataDir(ctx, f),
      source: REGISTRATION_SOURCES.webhookSet,
      keepOther: async (s) => {
        if (!f.secretFile) return;
        const path = resolve(ctx.io.cwd, f.secretFile);
        try {
          await writeFile(path, `${s}\n`, { mode: 0o600 });
        } catch (e) {
          throw new CliFailure(
            `the webhook is set, but the secret could not be saved to ${f.secretFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
            EXIT.failure,
            'SECRET_FILE',
          );
        }
        out.note(`signing secret saved to ${path}`);
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
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option('--json', 'one JSON object on stdout');
  defineAction(ctx, history, async (opts, out) => {
    const f = parseFlags(teamFlags, opts);
    const t = await teamAgent(ctx, f);
    const entries = await historyOf(out, registrationHistory(ctx, f), t.teamId, t.agentId);
    const now = ctx.clock.now();
    out.result({ teamId: t.teamId, agentId: t.agentId, registrations: entries.map(entryData) }, () =>
      entries.length === 0
        ? `no registration of ${t.agentId} by this install: where the service sends its deliveries is unknown (the service cannot tell us; another app may be receiving)`
        : [
            `registrations of ${t.agentId} (team ${t.label}) by this install, newest first; another app may have registered since:`,
            ...entries.map((e) => `  ${when(e.at, now)}  ${e.url}  (${e.source})`),
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
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .option('--json', 'one JSON object on stdout');
  defineAction(ctx, restore, async (opts, out) => {
    const f = parseFlags(teamFlags, opts);
    const target = await ctx.resolveTarget({ team: f.team, agent: f.agent, configDir: f.configDir });
    const store = registrationHistory(ctx, f);
    const team = teamsOf(ctx).teamOf(target);
    const entries = await historyOf(out, store, team?.teamId ?? null, target.agentId);
    const prev = previousRegistration(entries);
    if (!prev)
      throw new CliFailure(
        `no previous URL of ${target.agentId} in this install's history (see \`channel-companion webhook history\`)`,
        EXIT.failure,
        'NO_PREVIOUS_URL',
      );
    if (hasRedactedCredentials(prev.url)) {
      throw new CliFailure(
        `the previous URL ${prev.url} carried credentials (a user and password, query values or a token in its path), which the history does not keep: register it with \`channel-companion webhook set --url <url>\``,
        EXIT.failure,
        'CREDENTIALS_NOT_KEPT',
      );
    }
    const r = await registerAsked(ctx, out, {
      target,
      url: prev.url,
      yes: f.yes,
      history: store,
      dataDir: tunnelDataDir(ctx, f),
      source: REGISTRATION_SOURCES.webhookRestore,
    });
    if (r === null) throw new CliFailure('nothing registered: not confirmed', EXIT.failure, 'NOT_CONFIRMED');
    const how = `The new secret (${r.secretHint}) is stored in the keychain; show it at a terminal with \`channel-companion webhook secret --team ${f.team} --agent ${target.agentId} --reveal\`.`;
    out.result(
      {
        mode: r.mode,
        url: r.url,
        restoredFrom: entryData(prev),
        secretHint: r.secretHint,
        secretStored: 'keychain',
        needsNewSecret: true,
      },
      () => [`webhook ${r.mode}: ${r.url}`, restoredWords(r.url), how].join('\n'),
    );
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
    .option('--json', 'one JSON object on stdout');
  defineAction(ctx, secret, async (opts, out) => {
    const f = parseFlags(teamFlags, opts);
    if (f.reveal && !atTerminal(ctx))
      throw new UsageError(
        '--reveal prints the signing secret and is refused without a terminal (stdin is not a TTY); its hint is shown without --reveal',
      );
    const t = await teamAgent(ctx, f);
    const { teamStore } = await teamsOf(ctx).team(f.team, f.configDir);
    const secrets = await withTeams(() => teamStore.getSigningSecrets(t.teamId, t.agentId));
    const current = secrets[0];
    if (current === undefined)
      throw new CliFailure(
        `no signing secret is stored for ${t.agentId} (team ${t.label}): register its webhook with --team to store one`,
        EXIT.failure,
        'NO_SECRET',
      );
    const data: Record<string, unknown> = { teamId: t.teamId, agentId: t.agentId, secretHint: signingHint(current) };
    if (f.reveal) data.secret = current;
    out.result(data, () =>
      f.reveal
        ? current
        : `signing secret ${signingHint(current)} stored in the keychain (show it with --reveal at a terminal)`,
    );
  });
}
