// `listen`: runs the local signed-webhook receiver (127.0.0.1 by default) until Ctrl-C. Every
// delivery is verified, stored in the durable log and forwarded to --forward-to; one line per
// delivery (its verdict), per forward attempt (its result) and per refused request (why, including
// requests to paths that are not hooks). The ready line names the full hook URL of every agent (with
// no agent: `/hooks`, which takes deliveries for the default agent). --register-url points the
// agents' webhooks at this receiver's public URL and stores the returned signing secret. --expose
// ngrok / --expose-cmd open a public URL for the receiver (cli/expose.ts) and register it the same way.
// Registering and exposing are the app's use cases (app/usecases/webhooks.ts), as in the app.
// Registering replaces whatever URL the agent had: each agent's registration is asked at the terminal
// first (--yes skips; without a terminal it refuses unless --yes). The ready line says, per agent,
// what this install knows of where the service sends its deliveries (registration-status.ts), and
// when a registration of this receiver no longer reaches it, that it should be registered again.
import type { Command } from 'commander';
import { z } from 'zod';
import type { ServiceClient } from '../../app/service';
import type { Logger } from '../../app/ports';
import { findAgent } from '../../app/teams';
import { teamsOf, withTeams } from '../teams-context';
import { defineAction, type CliContext } from '../context';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { baseUrlSchema, httpUrlSchema } from '../../app/url';
import { isLoopbackHost, redactCredentials } from '../../../src-shared/url';
import { agentId, envVarName, intString, parseFlags } from '../flags';
import type { Output } from '../output';
import { DEFAULT_API_KEY_ENV } from '../target';
import {
  DATA_DIR_HELP,
  SECRET_FLAG_HELP,
  attemptData,
  attemptLine,
  deliveryData,
  deliveryLine,
  explicitSecret,
  oneSecretSource,
  openTunnel,
  refusedData,
  refusedLine,
  secretFlags,
  secretSource,
  tunnelDataDir,
} from '../tunnel-support';
import { HUB_FLAG_HELP } from '../hub-client';
import { addConfigDirOption, collect } from './team';
import { addExposeOptions, exposeFlags, oneExposure, receiverExposure, stopExposure, wantsExposure } from '../expose';
import type { ExposureController } from '../../app/expose';
import { hookUrl } from '../../app/registrations';
import { exposeAndRegister, registerAgentWebhook, registerHooksAt, type HookTarget } from '../../app/usecases/webhooks';
import { knownSecrets } from '../known-secrets';
import { describeOwner, freePortNear, portOwner } from '../../app/port-owner';
import {
  describeRegistration,
  REGISTRATION_SOURCES,
  takeoverQuestion,
  type RegistrationStatus,
} from '../../app/usecases/registration-status';
import type { RegistrationRecord, RegistrationTarget } from '../../app/registrations';
import { atTerminal, confirm } from '../confirm';
import { registrationHistory } from '../tunnel-support';
import { listenThroughCompanion } from '../listen-companion';
import { untilAborted } from '../io';

const flagsSchema = z
  .object({
    ...secretFlags,
    agent: z.array(agentId).optional(),
    port: intString(0, 65_535).optional(),
    maxConnections: intString(1, 65_535).optional(),
    host: z
      .string()
      .regex(/^[A-Za-z0-9.:_\-[\]]{1,253}$/, 'expected a host name or IP address')
      .optional(),
    forwardTo: httpUrlSchema.optional(),
    registerUrl: z
      .union([z.literal('self'), httpUrlSchema], {
        error: 'expected the public http(s) URL of this receiver, or "self"',
      })
      .optional(),
    baseUrl: baseUrlSchema.optional(),
    apiKeyEnv: envVarName,
    allowLegacySignature: z.boolean().optional(),
    json: z.boolean().optional(),
    yes: z.boolean().optional(),
    ...exposeFlags,
  })
  .refine(...oneSecretSource)
  .refine(...oneExposure)
  .refine((f) => !(f.registerUrl !== undefined && wantsExposure(f)), {
    message: 'with --expose the public URL is registered by itself: leave out --register-url',
    path: ['registerUrl'],
  })
  .refine((f) => !(f.team !== undefined && f.baseUrl !== undefined), {
    message: 'give either --team or --base-url, not both',
    path: ['team'],
  })
  .refine(
    (f) =>
      f.registerUrl === undefined || f.team !== undefined || (f.baseUrl !== undefined && (f.agent?.length ?? 0) > 0),
    {
      message: 'registering needs --team, or --base-url with --agent (and the key in the environment)',
      path: ['registerUrl'],
    },
  );

/** The agent `/hooks` stands for when no --agent (or team) names one. */
const DEFAULT_AGENT = 'default';

/** The port is held: by whom, and the flag that picks a port free now. */
async function portTakenFailure(host: string, port: number): Promise<CliFailure> {
  const owner = describeOwner(await portOwner(port));
  const free = await freePortNear(port, host).catch(() => null);
  const instead =
    free !== null ? `use --port ${free} (free now) or --port 0 (any free port)` : 'use --port 0 (any free port)';
  return new CliFailure(
    `the receiver could not listen on ${host}:${port}: the port is taken by ${owner}; ${instead}, or stop what holds it`,
    EXIT.failure,
    'PORT_TAKEN',
  );
}

function outputLogger(out: Output): Logger {
  return { info() {}, warn: (msg) => out.warn(msg), error: (msg) => out.warn(msg) };
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = addExposeOptions(
    addConfigDirOption(
      program
        .command('listen')
        .description(
          'receive signed webhook deliveries locally, verify them and forward them to your app, until Ctrl-C',
        )
        .option('--team <team>', 'a saved team: its agents, and their signing secrets from the keychain')
        .option('--agent <id>', 'an agent to receive for (repeatable); with one agent, /hooks is its URL too', collect)
        .option(
          '--port <n>',
          "port to listen on (default: the companion's tunnel port; with a secret given here: any free port; 0 = any free port)",
        )
        .option('--host <host>', 'interface to listen on (anything but loopback exposes the receiver)', '127.0.0.1')
        .option(
          '--max-connections <n>',
          'connections kept open at once; beyond it the oldest idle one is closed (default 256)',
        )
        .option(
          '--forward-to <url>',
          'your local app: verified deliveries are POSTed here with their original headers and bytes',
        )
        .option('--secret-env <name>', 'environment variable holding the signing secret (preferred)')
        .option('--secret <secret>', SECRET_FLAG_HELP)
        .option(
          '--allow-legacy-signature',
          'also accept deliveries signed only with x-service-signature (no timestamp: they can be replayed)',
        )
        .option('--data-dir <dir>', DATA_DIR_HELP)
        .option('--hub <url>', HUB_FLAG_HELP)
        .option(
          '--register-url <url>',
          'set the agents\' webhook to <url>/hooks/<agent> and store the secret ("self": this receiver, for the emulator)',
        )
        .option('--base-url <url>', 'with --register-url or --expose and no --team: the service base URL')
        .option(
          '--api-key-env <name>',
          'with --base-url: environment variable holding the API key',
          DEFAULT_API_KEY_ENV,
        )
        .option(
          '--yes',
          'register without asking (needed without a terminal): the URL each agent had stops receiving, and a new signing secret is issued',
        ),
    ),
  ).option(
    '--json',
    'one JSON object per line: ready, exposure, exposed, registered, delivery, forward, refused, still-registered, stopped',
  );

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    // Saved teams (or none named): a client of the data folder's companion and its receiver. A secret given
    // here, an ad hoc --base-url, an exposure or another interface: a bare receiver of this command's own.
    const bare =
      f.secret !== undefined ||
      f.secretEnv !== undefined ||
      f.baseUrl !== undefined ||
      wantsExposure(f) ||
      f.allowLegacySignature === true ||
      (f.host !== undefined && f.host !== '127.0.0.1');
    if (!bare)
      return listenThroughCompanion(ctx, out, {
        team: f.team,
        agent: f.agent,
        port: f.port,
        forwardTo: f.forwardTo,
        registerUrl: f.registerUrl,
        yes: f.yes,
        configDir: f.configDir,
        dataDir: f.dataDir,
      });
    const explicit = explicitSecret(ctx, out, f);
    const { Tunnel } = await import('../../app/tunnel');
    const host = f.host ?? '127.0.0.1';

    let agents = [...new Set(f.agent ?? [])];
    let teamId: string | undefined;
    let registerClient: (() => Promise<ServiceClient>) | undefined;
    let saveTeamSecret: ((agent: string, secret: string) => Promise<void>) | undefined;
    if (f.team !== undefined) {
      const { teamStore, team } = await teamsOf(ctx).team(f.team, f.configDir);
      teamId = team.id;
      agents = agents.length
        ? agents.map((a) => findAgent(team.agents, a)?.agentId ?? a)
        : team.agents.map((a) => a.agentId);
      const strangers = agents.filter((a) => !team.agents.some((x) => x.agentId === a));
      if (strangers.length)
        throw new UsageError(`--agent: team "${team.label}" has no agent ${strangers.map((s) => `"${s}"`).join(', ')}`);
      registerClient = () => withTeams(() => teamStore.clientFor(team.id));
      saveTeamSecret = (agent, secret) => withTeams(() => teamStore.setSigningSecret(team.id, agent, secret));
    } else if ((f.registerUrl !== undefined || wantsExposure(f)) && f.baseUrl !== undefined) {
      const apiKey = ctx.io.env[f.apiKeyEnv]?.trim();
      if (!apiKey)
        throw new UsageError(
          `no API key: set the environment variable ${f.apiKeyEnv} (or name another with --api-key-env); the key is never accepted as a flag`,
        );
      const client = ctx.client({ baseUrl: f.baseUrl, apiKey, agentId: '', keySource: `env ${f.apiKeyEnv}` });
      registerClient = async () => client;
    }
    if (
      explicit === undefined &&
      teamId === undefined &&
      f.registerUrl === undefined &&
      !(wantsExposure(f) && registerClient)
    ) {
      out.warn('no signing secret (--secret-env NAME or --team T): deliveries will be rejected as no-secret');
    }

    // Registering replaces each agent's webhook: asked at a terminal, refused without one unless --yes (before anything starts).
    const registering =
      registerClient !== undefined && (f.registerUrl !== undefined || (wantsExposure(f) && agents.length > 0));
    if (registering && f.yes !== true && !atTerminal(ctx)) {
      throw new UsageError(
        `registering replaces the webhook of ${agents.length > 0 ? agents.join(', ') : 'the agents'} (the URL each had stops receiving) and the service issues a new signing secret; there is no terminal to ask at (stdin is not a TTY): give --yes to register anyway`,
      );
    }

    const dataDir = tunnelDataDir(ctx, f);
    const history = registrationHistory(ctx, f);
    const lastOf = async (agent: string): Promise<RegistrationRecord | null> => {
      try {
        const { entries, problem } = await history.list(teamId ?? null, agent);
        if (problem) out.warn(problem);
        return entries[0] ?? null;
      } catch (e) {
        out.warn(e instanceof Error ? e.message : String(e));
        return null;
      }
    };
    const secrets = secretSource(ctx, { explicit, teamId, configDir: f.configDir });
    const forward: { defaultUrl?: string } = {};
    if (f.forwardTo !== undefined) forward.defaultUrl = f.forwardTo;
    const tunnelOpts: ConstructorParameters<typeof Tunnel>[0] = {
      dataDir,
      getSecrets: secrets.getSecrets,
      clock: ctx.clock,
      logger: outputLogger(out),
      forward,
      allowLegacySignature: f.allowLegacySignature === true,
      ...(f.maxConnections !== undefined ? { maxConnections: f.maxConnections } : {}),
    };
    tunnelOpts.defaultAgentId = agents.length === 1 ? agents[0]! : DEFAULT_AGENT;
    // Only the hooks it prints: one --secret may serve every agent, so no made-up agent id may take a
    // delivery (it would be a fresh place to replay one to).
    tunnelOpts.agents = agents.length > 0 ? agents : [DEFAULT_AGENT];
    const tunnel = new Tunnel(tunnelOpts);
    tunnel.on('delivery', (d) => out.event({ event: 'delivery', ...deliveryData(d) }, deliveryLine(d)));
    tunnel.on('forward', (a) => out.event({ event: 'forward', ...attemptData(a) }, attemptLine(a)));
    tunnel.on('refused', (r) => out.event({ event: 'refused', ...refusedData(r) }, refusedLine(r)));

    if (!isLoopbackHost(host))
      out.warn(
        `listening on ${host}, beyond this machine: anyone who can reach the port can post deliveries (they are still verified)`,
      );
    let exposure: ExposureController | null = null;
    const registered: Array<{ agentId: string; url: string }> = [];
    try {
      await openTunnel(tunnel, dataDir);
      let started;
      try {
        started = await tunnel.start({ port: f.port ?? 0, host, allowNonLoopback: true });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' && (f.port ?? 0) !== 0) throw await portTakenFailure(host, f.port!);
        const why =
          code === 'EADDRINUSE'
            ? ': the port is already in use'
            : code === 'EACCES'
              ? ': not allowed to use that port'
              : code === 'EADDRNOTAVAIL'
                ? ': no such address on this machine'
                : '';
        throw new CliFailure(
          `the receiver could not listen on ${host}:${f.port ?? 0}${why}`,
          EXIT.failure,
          'LISTEN_FAILED',
        );
      }
      // Every known agent's full hook URL; with none, /hooks itself takes the deliveries.
      const hooksAt = (base: string) =>
        agents.length > 0
          ? agents.map((a) => ({ agentId: a, url: hookUrl(base, a) }))
          : [{ agentId: DEFAULT_AGENT, url: hookUrl(base) }];
      const hooks = hooksAt(started.url);
      // What this install knows of where each agent's deliveries go now (before any registration of this run).
      const known: Array<{ agentId: string; status: RegistrationStatus }> = [];
      for (const h of hooks)
        known.push({
          agentId: h.agentId,
          status: describeRegistration(await lastOf(h.agentId), { local: h.url, public: null }, ctx.clock.now()),
        });
      const stale = known.filter((k) => k.status.state === 'stale');
      out.event(
        {
          event: 'ready',
          url: started.url,
          hooks,
          registrations: known.map((k) => ({
            agentId: k.agentId,
            state: k.status.state,
            text: k.status.text,
            url: k.status.last?.url ?? null,
          })),
          forwardTo: f.forwardTo ? redactCredentials(f.forwardTo) : null,
          dataDir,
          allowLegacySignature: f.allowLegacySignature === true,
        },
        [
          hooks.length === 1 ? `receiving webhook deliveries at ${hooks[0]!.url}` : 'receiving webhook deliveries at:',
          ...(hooks.length === 1 ? [] : hooks.map((h) => `  ${h.agentId}: ${h.url}`)),
          ...known.map((k) => `${k.agentId}'s webhook: ${k.status.text}`),
          ...(stale.length > 0 && !registering
            ? [
                `to register this receiver again: run listen with --register-url self (a service on this machine) or --expose${f.team !== undefined ? ` --team ${f.team}` : ''}, or use \`channel-companion webhook set\``,
              ]
            : []),
          f.forwardTo
            ? `forwarding verified deliveries to ${redactCredentials(f.forwardTo)}`
            : 'not forwarding (no --forward-to): deliveries are verified and logged only',
          'Press Ctrl-C to stop.',
        ].join('\n'),
      );

      // Asks for each agent before its webhook is replaced (or --yes); the agents the person said no to are left as they are.
      const asked = async (list: HookTarget[], urlOf: (agent: string) => string): Promise<HookTarget[]> => {
        const yes: HookTarget[] = [];
        for (const t of list) {
          if (
            await confirm(
              ctx,
              takeoverQuestion(t.agentId, urlOf(t.agentId), await lastOf(t.agentId), ctx.clock.now()),
              f.yes,
            )
          )
            yes.push(t);
          else out.note(`not registering ${t.agentId}: its webhook is left as it was`);
        }
        return yes;
      };
      let registerAs: { source: string; target: RegistrationTarget } = {
        source: REGISTRATION_SOURCES.listenRegisterUrl,
        target: 'exposure',
      };

      // One agent's registration (the app's use case), said as it happens; the first failure ends the run.
      const registerOne = async ({ agentId: agent }: HookTarget, url: string) => {
        const {
          registration: r,
          secretHint: hint,
          historyProblem,
        } = await registerAgentWebhook({
          client: await registerClient!(),
          agentId: agent,
          url,
          signal: ctx.signal,
          inFlight: tunnel.registrations,
          history: { store: history, teamId: teamId ?? null, ...registerAs },
          keepSecret: async (secret) => {
            if (saveTeamSecret) await saveTeamSecret(agent, secret);
            else secrets.remember(agent, secret);
            // The receiver reads the agent's secrets again now, not at a delivery.
            await tunnel.secretsChanged(agent);
          },
        });
        if (historyProblem) out.warn(historyProblem);
        registered.push({ agentId: agent, url: r.url });
        out.event(
          {
            event: 'registered',
            agentId: agent,
            url: r.url,
            mode: r.mode,
            secretHint: hint,
            secretStored: saveTeamSecret ? 'keychain' : 'memory',
          },
          `webhook of ${agent} → ${r.url}; signing secret ${hint} ${saveTeamSecret ? 'stored in the keychain' : 'kept in memory for this run (use --team to store it)'}`,
        );
        return r;
      };
      const targets = agents.map((agentId) => ({ teamId: teamId ?? '', agentId }));
      if (f.registerUrl !== undefined && registerClient) {
        if (agents.length === 0) throw new UsageError('--register-url: no agents to register (give --agent)');
        const base = f.registerUrl === 'self' ? started.url : f.registerUrl;
        registerAs = {
          source: REGISTRATION_SOURCES.listenRegisterUrl,
          target: f.registerUrl === 'self' ? 'receiver' : 'exposure',
        };
        const chosen = await asked(targets, (a) => hookUrl(base, a));
        if (chosen.length > 0) await registerHooksAt(base, chosen, { register: registerOne, stopOnFailure: true });
      }

      if (wantsExposure(f)) {
        const ex = receiverExposure(ctx, out, f, () =>
          knownSecrets(ctx, { envNames: [f.apiKeyEnv, f.secretEnv], explicit, configDir: f.configDir }),
        );
        exposure = ex.controller;
        registerAs = { source: REGISTRATION_SOURCES.listenExpose, target: 'exposure' };
        const chosen = registering ? await asked(targets, (a) => hookUrl('<its public URL>', a)) : [];
        await exposeAndRegister({
          controller: ex,
          port: started.port,
          request: ex.request,
          targets: chosen,
          register: registerOne,
          stopOnFailure: true,
          onUp: (url) => {
            // The same hooks as the ready line, at the public URL (with no agent: its /hooks).
            const hooks = hooksAt(url);
            out.event(
              { event: 'exposed', url, hooks },
              agents.length > 0 ? hooks.map((h) => `  ${h.agentId}: ${h.url}`).join('\n') : `  ${hooks[0]!.url}`,
            );
            if (!registering)
              out.note(
                'not registered with the service: give --team T (or --base-url URL with --agent A and the key in the environment), or use `channel-companion webhook set`',
              );
          },
        });
      }
      await untilAborted(ctx.signal);
    } finally {
      if (exposure) await stopExposure(out, exposure, registered, f.team);
      await tunnel.stop();
    }
    out.event({ event: 'stopped' }, 'receiver stopped');
    return EXIT.ok;
  });
}
