// `hub`: the companion, headless, for a team — the contract over HTTP for members with a token and a role,
// its members in Postgres (--database URL, else DATABASE_URL). `hub migrate` brings the schema up to date
// (every `hub` start does too); `hub member add|list|set-role|remove` manage who may call what (docs/hub.md).
// The database URL is never printed (it may hold a password); a member's token is printed once, at `add`.
import type { Command } from 'commander';
import { z } from 'zod';
import { isLoopbackHost } from '../../../src-shared/url';
import { defineAction, type CliContext } from '../context';
import { refuseHub } from '../hub-client';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { AppError } from '../../app/errors';
import { describeOwner, isPortTaken, portOwner } from '../../app/port-owner';
import { hostName, intString, parseFlags, secondsString } from '../flags';
import { cliLogger, type Output } from '../output';
import { companionFolders } from '../companion';
import { ROLES } from '../../../src-shared/roles';
import { untilAborted } from '../io';
import type { HubStreams } from '../../app/hub/streams';
import { registerHubActivity } from './hub-activity';
import { collect } from './team';

/** The longest the activity may be kept, in days (0 keeps it forever). */
const MAX_AUDIT_DAYS = 3_650;

const DATABASE_HELP = 'Postgres URL, postgres://USER[:PASSWORD]@HOST:PORT/DATABASE (default: env DATABASE_URL)';

const databaseFlags = {
  database: z.string().min(1, 'expected a postgres:// URL').optional(),
  json: z.boolean().optional(),
};

const secretKeyFlags = {
  secretKeyFile: z.string().min(1, 'expected a file').optional(),
  previousSecretKeyFile: z.array(z.string().min(1, 'expected a file')).optional(),
};

const serveSchema = z.object({
  ...databaseFlags,
  port: intString(0, 65_535).optional(),
  host: hostName.optional(),
  publicUrl: z.url({ protocol: /^https?$/, error: 'expected the http(s) URL the team reaches the hub at' }).optional(),
  configDir: z.string().min(1, 'expected a folder').optional(),
  dataDir: z.string().min(1, 'expected a folder').optional(),
  pollSec: secondsString.optional(),
  logFormat: z.enum(['text', 'json'], { error: 'expected text or json' }).optional(),
  auditDays: intString(0, MAX_AUDIT_DAYS).optional(),
  ...secretKeyFlags,
});

/** The activity's retention: --audit-days, else CHANNEL_HUB_AUDIT_DAYS, else the default (undefined). */
function auditDays(ctx: CliContext, flag: number | undefined): number | undefined {
  if (flag !== undefined) return flag;
  const env = ctx.io.env.CHANNEL_HUB_AUDIT_DAYS;
  if (env === undefined || env === '') return undefined;
  const r = intString(0, MAX_AUDIT_DAYS).safeParse(env.trim());
  if (!r.success) throw new UsageError(`CHANNEL_HUB_AUDIT_DAYS: ${r.error.issues[0]?.message ?? 'bad value'}`);
  return r.data;
}

const addSchema = z.object({
  ...databaseFlags,
  role: z.enum(ROLES, { error: `expected one of ${ROLES.join(', ')}` }),
});

/** The hub's modules, loaded on demand: the other commands never load the Postgres driver. */
async function hubModules() {
  const [
    { HubDatabaseError, HubDatabaseUnreachable, databaseAddress, openHubDatabase, migrateHub, databaseReachable },
    { MemberError, audit, addMember, listMembers, removeMember, setMemberRole, memberOfToken },
  ] = await Promise.all([import('../../app/hub/database'), import('../../app/hub/members')]);
  return {
    HubDatabaseError,
    HubDatabaseUnreachable,
    databaseAddress,
    openHubDatabase,
    migrateHub,
    databaseReachable,
    MemberError,
    audit,
    addMember,
    listMembers,
    removeMember,
    setMemberRole,
    memberOfToken,
  };
}
type Hub = Awaited<ReturnType<typeof hubModules>>;

function databaseUrl(ctx: CliContext, given: string | undefined): string {
  const url = given ?? ctx.io.env.DATABASE_URL;
  if (!url) throw new UsageError('give the hub its database: --database postgres://… or DATABASE_URL');
  return url;
}

/** Opens the database (migrated), runs `fn`, closes it; the hub's own errors become the CLI's. */
async function withDatabase<T>(
  ctx: CliContext,
  given: string | undefined,
  fn: (hub: Hub, db: ReturnType<Hub['openHubDatabase']>, migrated: string[]) => Promise<T>,
): Promise<T> {
  const url = databaseUrl(ctx, given);
  const hub = await hubModules();
  let db: ReturnType<Hub['openHubDatabase']>;
  try {
    db = hub.openHubDatabase(url);
  } catch (e) {
    if (e instanceof hub.HubDatabaseError) throw new UsageError(`--database: ${e.message}`);
    throw e;
  }
  try {
    const migrated = await hub.migrateHub(db);
    return await fn(hub, db, migrated);
  } catch (e) {
    if (e instanceof hub.MemberError)
      throw new CliFailure(e.message, e.code === 'BAD_MEMBER_NAME' ? EXIT.usage : EXIT.failure, e.code);
    // The database away (not started, a wrong host or port, a network between): exit 3, as a service unreachable.
    if (e instanceof hub.HubDatabaseUnreachable)
      throw new CliFailure(
        `the hub's database at ${hub.databaseAddress(url)} could not be reached (${e.why}); start it, or check --database / DATABASE_URL`,
        EXIT.service,
        'DATABASE_UNREACHABLE',
      );
    if (e instanceof hub.HubDatabaseError) throw new CliFailure(e.message, EXIT.failure, 'DATABASE');
    // Not the database's: the hub's port taken, its data folder owned by another companion (their own words).
    if (isPortTaken(e)) {
      const { address, port } = e as { address?: string; port?: number };
      const where = `${address ?? 'its interface'}:${port ?? '?'}`;
      const owner = port !== undefined ? describeOwner(await portOwner(port)) : 'another program';
      throw new CliFailure(
        `the hub could not listen on ${where}: the port is taken by ${owner}; give another --port (0: any free port), or stop what holds it`,
        EXIT.failure,
        'PORT_TAKEN',
      );
    }
    if (e instanceof AppError) throw e;
    if (e instanceof Error && !(e instanceof CliFailure) && !(e instanceof UsageError))
      throw new CliFailure(`the hub's database: ${e.message}`, EXIT.failure, 'DATABASE');
    throw e;
  } finally {
    await db.destroy();
  }
}

/** The key that seals the teams' secrets and the previous ones that still open them (a malformed one: exit 2). */
async function secretKeys(
  ctx: CliContext,
  f: { secretKeyFile?: string | undefined; previousSecretKeyFile?: string[] | undefined },
): Promise<{ key: Buffer; previous: Buffer[] }> {
  const { loadSecretKey, loadPreviousSecretKeys, HubSecretKeyError } = await import('../../app/hub/secrets');
  try {
    return {
      key: await loadSecretKey(f.secretKeyFile, ctx.io.env),
      previous: await loadPreviousSecretKeys(f.previousSecretKeyFile ?? [], ctx.io.env),
    };
  } catch (e) {
    throw e instanceof HubSecretKeyError ? new UsageError(e.message) : e;
  }
}

async function serveHub(ctx: CliContext, f: z.infer<typeof serveSchema>, out: Output): Promise<number> {
  refuseHub(ctx, 'hub');
  const host = f.host ?? '127.0.0.1';
  const keepAuditDays = auditDays(ctx, f.auditDays);
  const [{ hubPolling, replicaId }, { HubMetrics, jsonLogger }] = await Promise.all([
    import('../../app/hub/polling'),
    import('../../app/hub/ops'),
  ]);
  const replica = replicaId();
  const logger = f.logFormat === 'json' ? jsonLogger((line) => ctx.io.stderr.write(line), replica) : cliLogger(out);
  if (!isLoopbackHost(host))
    logger.warn(`listening on ${host}, beyond this machine: put the hub behind a TLS-terminating proxy (docs/hub.md)`);
  // The teams' secrets are kept encrypted in the database: no key, no hub (checked before anything starts).
  const { PostgresSecretStore, revealRecorded } = await import('../../app/hub/secrets');
  const keys = await secretKeys(ctx, f);
  return withDatabase(ctx, f.database, async (hub, db, migrated) => {
    const [{ hostCompanion }, { startHubServer }, { hubPing }, { startHubFanout }] = await Promise.all([
      import('../../app/companion/hosted'),
      import('../../hub/server'),
      import('../../app/hub/ping'),
      import('../../app/hub/events'),
    ]);
    const polling = hubPolling({ db, logger, replica });
    const secrets = new PostgresSecretStore(db, keys.key, keys.previous);
    await secrets.probe().catch((e: unknown) => {
      throw new CliFailure(e instanceof Error ? e.message : String(e), EXIT.failure, 'SECRET_KEY');
    });
    const { postgresConfigStore, afterConfigCatchUp } = await import('../../app/hub/config');
    const configStore = postgresConfigStore(db, databaseUrl(ctx, f.database), logger);
    const { configDir, dataDir } = companionFolders(ctx, f);
    // One inbox for every replica: the messages in the database, unread counts and read marks per member.
    const { hubMessages } = await import('../../app/hub/message-store');
    // Who sent, registered and deleted what: recorded with the member, listed by hub.activity.
    const { hubAttribution, actingName, recordsItself } = await import('../../app/hub/attribution');
    const attribution = hubAttribution(db);
    // Deliveries committed to the database before they are acknowledged; read from it on every replica.
    const deliveries = (await import('../../app/hub/deliveries')).hubDeliveries(
      db,
      replica,
      databaseUrl(ctx, f.database),
    );
    // The messages' files in the database: any replica answers them, a deletion deletes them everywhere.
    const media = (await import('../../app/hub/media')).hubMedia({ db, dataDir, findDelivery: deliveries.find });
    // Webhook registrations in the database, each replica told of every one (Messages, Tunnel).
    const registrations = (await import('../../app/hub/registrations')).hubRegistrations({
      db,
      url: databaseUrl(ctx, f.database),
      replica,
      dataDir,
      publicUrl: f.publicUrl ?? null,
      logger,
    });
    await registrations.start();
    // The chat transcripts in the database: every replica answers a conversation the same, whichever ran its turns.
    const { hubChatTranscripts } = await import('../../app/hub/chat-transcripts');
    const hosted = await hostCompanion({
      shell: 'hub',
      command: 'channel-companion hub',
      secrets,
      clock: ctx.clock,
      logger,
      poll: f.pollSec !== undefined ? { intervalMs: Math.round(f.pollSec * 1000) } : {},
      configDir,
      dataDir,
      messages: { ...hubMessages(db, dataDir, databaseUrl(ctx, f.database)), media: media.store },
      // Its deliveries' events go out with their commit (app/hub/deliveries.ts).
      contract: { media: { delivery: media.delivery }, deliveryEvents: false },
      actingMember: actingName,
      configStore,
      pollShare: polling.share,
      commitDelivery: deliveries.commit,
      webhookRegistry: registrations,
      chatTranscripts: hubChatTranscripts(db, { logger }),
      // The hooks are served on the hub's port (/hooks/<agentId>); the receiver's own port is any free one.
      startTunnel: true,
      tunnelPort: 0,
    }).catch(async (e: unknown) => {
      await registrations.close();
      throw e;
    });
    deliveries.attach(hosted.companion);
    // The activity's retention, swept by one replica at a time.
    const auditRetention = (await import('../../app/hub/audit-retention')).startAuditRetention({
      db,
      days: keepAuditDays,
      logger,
    });
    // The inbox follows the committed deliveries: those a replica died before writing are taken in.
    const inboxCatchUp = (await import('../../app/hub/inbox-catchup')).startInboxCatchUp(db, hosted.companion, logger);
    let server: Awaited<ReturnType<typeof startHubServer>> | null = null;
    let fanout: Awaited<ReturnType<typeof startHubFanout>> | null = null;
    let streams: HubStreams | null = null;
    let chatFrames: { close(): Promise<void> } | null = null;
    try {
      // The team's events: the companion's shared ones published to hub_events, every replica serving them
      // all with ids (a client resumes on any replica); the rest reach this replica's clients only.
      const url = databaseUrl(ctx, f.database);
      fanout = await startHubFanout({ db, url, events: polling.publishedEvents(hosted), replica, logger });
      // A chat turn's tokens and a send's progress reach the member's clients on every replica (NOTIFY).
      streams = (await import('../../app/hub/streams')).startHubStreams({
        db,
        url,
        events: hosted.contract.events,
        replica,
        logger,
      });
      // A chat turn's frames kept in the database while it streams: chat.frames answers on every replica.
      const frames = (await import('../../app/hub/chat-frames')).hubChatFrames({
        db,
        replica,
        events: hosted.contract.events,
        implementations: hosted.contract.implementations,
        logger,
      });
      chatFrames = frames;
      const shared = await polling.start(hosted);
      const metrics = new HubMetrics(
        {
          leasesHeld: () => polling.leasesHeld(),
          clients: () => server?.clients() ?? 0,
          queueDepth: () => (server?.inFlight() ?? 0) + polling.backlog(),
          eventLagSeconds: () => fanout?.journal.lagSeconds() ?? 0,
        },
        hosted.companion.metrics,
      );
      server = await startHubServer({
        // Each request first catches up with a config another replica changed (a member's previous request).
        handlers: afterConfigCatchUp(
          frames.handlers({
            ...hosted.handlers,
            ...shared,
            ...deliveries.handlers(hosted.contract.implementations),
            'webhook.revealSecret': revealRecorded(hosted.handlers['webhook.revealSecret'], db),
            'app.ping': hubPing(hosted.handlers['app.ping'], f.publicUrl ?? null),
            ...attribution.handlers(hosted.handlers, hosted.contract.implementations),
          }),
          () => configStore.catchUp(),
        ),
        events: streams.events(fanout.events),
        journal: fanout.journal,
        memberOfToken: (token) => hub.memberOfToken(db, token),
        ready: () => hub.databaseReachable(db),
        record: (e) => (recordsItself(e.action) ? Promise.resolve() : hub.audit(db, e)),
        metrics: () => metrics.render(),
        hooks: (req, res) => hosted.companion.tunnel().serveHook(req, res),
        hookError: (err, socket) => hosted.companion.tunnel().serveHookError(err, socket),
        host,
        ...(f.port !== undefined ? { port: f.port } : {}),
      });
      const members = (await hub.listMembers(db)).length;
      out.event(
        {
          event: 'ready',
          origin: server.origin,
          port: server.port,
          pid: process.pid,
          replica,
          publicUrl: f.publicUrl ?? null,
          members,
          migrated,
          auditDays: auditRetention.days,
          dataDir: hosted.companion.dataDir,
        },
        [
          `The hub is serving at ${server.origin}${f.publicUrl ? ` (public: ${f.publicUrl})` : ''}.`,
          members === 0
            ? '  No members yet: channel-companion hub member add NAME --role admin'
            : `  ${members} member${members === 1 ? '' : 's'}.`,
          'Press Ctrl-C to stop.',
        ].join('\n'),
      );
      await untilAborted(ctx.signal);
    } finally {
      // A graceful drain: /readyz 503 at once, the requests in flight answered, the leases given back
      // (another replica polls their agents from its next round), then the companion stops.
      logger.info('hub: draining', { inFlight: server?.inFlight() ?? 0 });
      await Promise.all([server?.drain(), polling.drain()]);
      await polling.close();
      await streams?.close();
      await chatFrames?.close();
      await fanout?.close();
      await registrations.close();
      inboxCatchUp.close();
      await auditRetention.close();
      await hosted.close();
      await server?.close();
      await deliveries.close();
    }
    out.event({ event: 'closed' }, 'stopped');
    return EXIT.ok;
  });
}

export function register(program: Command, ctx: CliContext): void {
  const hubCmd = program
    .command('hub')
    .description('run the companion for a team: the contract over HTTP for members, state in Postgres (docs/hub.md)');
  // `hub [flags]` is `hub start [flags]`: the hub's flags and its subcommands' never mix.
  const start = hubCmd
    .command('start', { isDefault: true })
    .description('serve the hub until Ctrl-C / SIGTERM (migrating its database first)')
    .option('--database <url>', DATABASE_HELP)
    .option('--port <n>', 'port to listen on (default: any free port)')
    .option('--host <host>', 'interface to listen on (default 127.0.0.1; the TLS proxy in front reaches it)')
    .option('--public-url <url>', 'the https URL the team reaches the hub at (through its proxy)')
    .option('--config-dir <dir>', "folder of the hub companion's config (default: the app config folder)")
    .option('--data-dir <dir>', "the hub companion's data folder (default: <config-dir>/data)")
    .option('--poll-sec <s>', 'poll interval for this run (seconds; default: the saved one, 15)')
    .option('--log-format <format>', 'text (default) | json: one JSON object per line on stderr')
    .option(
      '--audit-days <n>',
      `days the team's activity (hub_audit) is kept, 0 to ${MAX_AUDIT_DAYS}; 0 keeps it forever (default: env CHANNEL_HUB_AUDIT_DAYS, else 400)`,
    )
    .option(
      '--secret-key-file <path>',
      `file holding the key that encrypts the teams' secrets in the database (default: env CHANNEL_HUB_SECRET_KEY)`,
    )
    .option(
      '--previous-secret-key-file <path>',
      'file holding a previous key, to read what it encrypted until `hub rotate-key` (repeatable; also env CHANNEL_HUB_PREVIOUS_SECRET_KEYS, a comma list)',
      collect,
    )
    .option('--json', 'one JSON object per line on stdout; the first is {"event":"ready",…}');
  defineAction(ctx, start, async (opts, out) => serveHub(ctx, parseFlags(serveSchema, opts), out));

  registerHubActivity(hubCmd, ctx);

  const migrate = hubCmd
    .command('migrate')
    .description("bring the hub's database schema up to date (every hub start does too)")
    .option('--database <url>', DATABASE_HELP)
    .option('--json', 'print the result as JSON');
  defineAction(ctx, migrate, async (opts, out) => {
    const f = parseFlags(z.object(databaseFlags), opts);
    const migrated = await withDatabase(ctx, f.database, async (_hub, _db, ran) => ran);
    out.result({ migrated }, migrated.length === 0 ? 'The schema is up to date.' : `Migrated: ${migrated.join(', ')}.`);
  });

  const rotate = hubCmd
    .command('rotate-key')
    .description(
      're-encrypt every stored secret under the current key (the previous ones given to open them), in one transaction',
    )
    .option('--database <url>', DATABASE_HELP)
    .option('--secret-key-file <path>', 'file holding the current key (default: env CHANNEL_HUB_SECRET_KEY)')
    .option(
      '--previous-secret-key-file <path>',
      'file holding a previous key (repeatable; also env CHANNEL_HUB_PREVIOUS_SECRET_KEYS, a comma list)',
      collect,
    )
    .option('--json', 'print {"resealed":N,"keyId":…}');
  defineAction(ctx, rotate, async (opts, out) => {
    const f = parseFlags(z.object({ ...databaseFlags, ...secretKeyFlags }), opts);
    const keys = await secretKeys(ctx, f);
    const { PostgresSecretStore } = await import('../../app/hub/secrets');
    const r = await withDatabase(ctx, f.database, async (_hub, db) => {
      const store = new PostgresSecretStore(db, keys.key, keys.previous);
      return store.rotate().catch((e: unknown) => {
        throw new CliFailure(e instanceof Error ? e.message : String(e), EXIT.failure, 'SECRET_KEY');
      });
    });
    out.result(
      r,
      `Re-encrypted ${r.resealed} secret${r.resealed === 1 ? '' : 's'} and the check value under the key ${r.keyId}. Once every replica runs with it as the current key, drop the previous keys.`,
    );
  });

  const member = hubCmd.command('member').description("the hub's members: who may call what");

  const add = member
    .command('add <name>')
    .description('add a member with a role; prints its token once (keep it: only a hash is stored)')
    .requiredOption('--role <role>', ROLES.join(' | '))
    .option('--database <url>', DATABASE_HELP)
    .option('--json', 'print the member and its token as JSON');
  defineAction(ctx, add, async (opts, out, cmd) => {
    const f = parseFlags(addSchema, opts);
    const name = cmd.args[0] ?? '';
    const m = await withDatabase(ctx, f.database, (hub, db) => hub.addMember(db, name, f.role));
    out.result(
      { name: m.name, role: m.role, createdAt: m.createdAt, token: m.token },
      `Added ${m.name} (${m.role}). Their token, shown this once:\n${m.token}`,
    );
  });

  const list = member
    .command('list')
    .description("the hub's present members")
    .option('--database <url>', DATABASE_HELP)
    .option('--json', 'print {"members":[…]}');
  defineAction(ctx, list, async (opts, out) => {
    const f = parseFlags(z.object(databaseFlags), opts);
    const members = await withDatabase(ctx, f.database, (hub, db) => hub.listMembers(db));
    out.result({ members }, () =>
      members.length === 0
        ? 'No members.'
        : members.map((m) => `${m.name}  ${m.role}  since ${new Date(m.createdAt).toISOString()}`).join('\n'),
    );
  });

  const setRole = member
    .command('set-role <name>')
    .description("change a member's role, keeping their token: their open windows are told at once")
    .requiredOption('--role <role>', ROLES.join(' | '))
    .option('--database <url>', DATABASE_HELP)
    .option('--json', 'print the member, their role and the previous one as JSON');
  defineAction(ctx, setRole, async (opts, out, cmd) => {
    const f = parseFlags(addSchema, opts);
    const name = cmd.args[0] ?? '';
    const m = await withDatabase(ctx, f.database, (hub, db) => hub.setMemberRole(db, name, f.role));
    out.result(
      { name: m.name, role: m.role, previous: m.previous, createdAt: m.createdAt },
      m.previous === m.role ? `${m.name} is ${m.role} already.` : `${m.name} is now ${m.role} (was ${m.previous}).`,
    );
  });

  const remove = member
    .command('remove <name>')
    .description('remove a member: its token is refused from the next request on')
    .option('--database <url>', DATABASE_HELP)
    .option('--json', 'print the result as JSON');
  defineAction(ctx, remove, async (opts, out, cmd) => {
    const f = parseFlags(z.object(databaseFlags), opts);
    const name = cmd.args[0] ?? '';
    await withDatabase(ctx, f.database, (hub, db) => hub.removeMember(db, name));
    out.result({ removed: name }, `Removed ${name}: their token no longer works.`);
  });
}
