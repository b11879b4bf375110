// `trigger`: simulates one inbound delivery (like `stripe trigger`): a message.received event,
// signed with the agent's secret, stored in the tunnel's log (marked simulated) and forwarded once
// to the local app. Exit 0 when the app answered 2xx (or nothing was to be forwarded), 1 otherwise.
import type { Command } from 'commander';
import { z } from 'zod';
import type { ForwardAttempt } from '../../core/tunnel';
import { teamsOf } from '../teams-context';
import { defineAction, type CliContext } from '../context';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { httpUrlSchema, redactCredentials } from '../../core/url';
import { agentId, parseFlags, secondsString } from '../flags';
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
  secretFlags,
  secretSource,
  tunnelDataDir,
} from '../tunnel-support';
import { addConfigDirOption } from './team';

const flagsSchema = z
  .object({
    ...secretFlags,
    agent: agentId,
    text: z.string().max(65_536, 'the text is too long').optional(),
    type: z.enum(['text', 'image', 'document'], { error: 'expected text, image or document' }).optional(),
    from: z
      .string()
      .regex(/^\+?[1-9]\d{5,14}$/, 'expected an E.164 phone number like +15550100002')
      .optional(),
    caption: z.string().max(4096).optional(),
    filename: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^/\\\0]+$/, 'expected a file name without slashes')
      .optional(),
    forwardTo: httpUrlSchema.optional(),
    timeout: secondsString.optional(),
    json: z.boolean().optional(),
  })
  .refine(...oneSecretSource)
  .refine((f) => f.filename === undefined || (f.type ?? 'text') !== 'text', {
    message: '--filename names a media file; give --type image or document',
    path: ['filename'],
  });

export function register(program: Command, ctx: CliContext): void {
  const cmd = addConfigDirOption(
    program
      .command('trigger')
      .description('simulate one signed inbound message and forward it to your local app')
      .requiredOption('--agent <id>', 'the agent the message is for')
      .option('--text <text>', 'message text (the caption for media)')
      .option('--type <type>', 'text, image or document', 'text')
      .option('--from <number>', 'sender, E.164 (default +15550100002)')
      .option('--caption <text>', 'media caption')
      .option('--filename <name>', 'media file name')
      .option('--forward-to <url>', 'your local app (without it the delivery is only stored)')
      .option('--secret-env <name>', 'environment variable holding the signing secret (preferred)')
      .option('--secret <secret>', SECRET_FLAG_HELP)
      .option('--team <team>', "a saved team: sign with the agent's secret from the keychain")
      .option('--data-dir <dir>', DATA_DIR_HELP)
      .option('--timeout <seconds>', 'wait this long for the local app (default 15)'),
  ).option('--json', 'one JSON object per line: delivery, then forward (or trigger when not forwarded)');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const explicit = explicitSecret(ctx, out, f);
    let teamId: string | undefined;
    if (f.team !== undefined) teamId = (await teamsOf(ctx).team(f.team, f.configDir)).team.id;
    if (explicit === undefined && teamId === undefined)
      throw new UsageError('the signing secret is required: --secret-env NAME (preferred), --secret S, or --team T');
    const { Tunnel, TunnelError } = await import('../../core/tunnel');
    const secrets = secretSource(ctx, { explicit, teamId, configDir: f.configDir });
    const forward: { defaultUrl?: string } = {};
    if (f.forwardTo !== undefined) forward.defaultUrl = f.forwardTo;
    const dataDir = tunnelDataDir(ctx, f);
    const tunnel = new Tunnel({ dataDir, getSecrets: secrets.getSecrets, clock: ctx.clock, forward });
    try {
      await openTunnel(tunnel, dataDir);
      const input: Parameters<typeof tunnel.trigger>[0] = { agentId: f.agent, type: f.type ?? 'text' };
      if (f.text !== undefined) input.text = f.text;
      if (f.from !== undefined) input.from = f.from;
      if (f.caption !== undefined) input.caption = f.caption;
      if (f.filename !== undefined) input.filename = f.filename;
      let r;
      try {
        r = await tunnel.trigger(input);
      } catch (e) {
        if (e instanceof TunnelError && e.code === 'no-secret')
          throw new UsageError(
            `no signing secret for agent ${f.agent}: give --secret-env NAME, or --team T with a stored secret`,
          );
        throw e;
      }
      out.event({ event: 'delivery', ...deliveryData(r.delivery) }, deliveryLine(r.delivery));
      const timeoutMs = (f.timeout ?? 15) * 1000;
      let timer: unknown;
      const attempt = await Promise.race([
        r.forwarded,
        new Promise<'timeout'>((resolve) => (timer = ctx.clock.setTimeout(() => resolve('timeout'), timeoutMs))),
        new Promise<'aborted'>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
        ),
      ]);
      ctx.clock.clearTimeout(timer);
      if (attempt === 'aborted') throw new CliFailure('cancelled', EXIT.interrupted, 'INTERRUPTED');
      if (attempt === 'timeout')
        throw new CliFailure(
          `no answer from ${redactCredentials(f.forwardTo ?? '')} within ${f.timeout ?? 15} s; the delivery stays queued in the log`,
          EXIT.failure,
          'FORWARD_TIMEOUT',
        );
      if (attempt === null) {
        out.event(
          { event: 'trigger', deliveryId: r.delivery.id, forwarded: false },
          'stored; not forwarded (no --forward-to)',
        );
        return EXIT.ok;
      }
      const a: ForwardAttempt = attempt;
      out.event({ event: 'forward', ...attemptData(a) }, attemptLine(a));
      const ok = a.status !== null && a.status >= 200 && a.status <= 299;
      if (!ok)
        out.note(
          `your app did not accept it (${a.status ?? a.error ?? 'no answer'}); the tunnel keeps retrying while \`listen\` runs`,
        );
      return ok ? EXIT.ok : EXIT.failure;
    } finally {
      await tunnel.stop();
    }
  });
}
