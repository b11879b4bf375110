// `trigger`: simulates one inbound delivery (like `stripe trigger`) through the companion of the data folder: a
// message.received event, signed with the agent's stored secret, stored in the receiver's log (marked
// simulated) and forwarded as the companion forwards every delivery (its forward address, a setting). With
// --forward-to it is also sent once to that URL (a replay as received, marked so in the log). Exit 0 when the
// app answered 2xx (or nothing was to be forwarded), 1 otherwise.
import type { Command } from 'commander';
import { z } from 'zod';
import type { ForwardResultDTO } from '../../../src-shared/contract';
import { ContractError } from '../../app/client';
import { httpUrlSchema } from '../../app/url';
import { redactCredentials } from '../../../src-shared/url';
import { addCompanionOptions } from '../companion';
import { agentOfTeam, teamNamed, withCompanion } from '../companion-run';
import { defineAction, type CliContext } from '../context';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { agentId, parseFlags, secondsString, teamName } from '../flags';
import { forwardLine, summaryLine } from '../delivery-lines';

const DEFAULT_FROM = '+15550100002';

const flagsSchema = z
  .object({
    dataDir: z.string().min(1, 'expected a folder').optional(),
    configDir: z.string().min(1, 'expected a folder').optional(),
    team: teamName.optional(),
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
  .refine((f) => f.filename === undefined || (f.type ?? 'text') !== 'text', {
    message: '--filename names a media file; give --type image or document',
    path: ['filename'],
  });

const ok2xx = (f: ForwardResultDTO): boolean => f.status !== null && f.status >= 200 && f.status <= 299;

export function register(program: Command, ctx: CliContext): void {
  const cmd = addCompanionOptions(
    program
      .command('trigger')
      .description('simulate one signed inbound message through the companion and forward it to your local app')
      .requiredOption('--agent <id>', 'the agent the message is for (with --team: its id or label)')
      .option('--team <team>', "the agent's saved team (default: the team that has the agent)")
      .option('--text <text>', 'message text (the caption for media)')
      .option('--type <type>', 'text, image or document', 'text')
      .option('--from <number>', `sender, E.164 (default ${DEFAULT_FROM})`)
      .option('--caption <text>', 'media caption')
      .option('--filename <name>', 'media file name')
      .option(
        '--forward-to <url>',
        "also send it to this URL once (without it: the agent's forward address, a setting of the companion)",
      )
      .option('--timeout <seconds>', "wait this long for the companion's forward (default 15)"),
  ).option(
    '--json',
    'one JSON object per line: {"event":"delivery","delivery":DeliverySummaryDTO}, then {"event":"forward","forward":ForwardResultDTO} for each forward',
  );

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    return withCompanion(ctx, out, f, async (client, session) => {
      let teamId: string | undefined;
      let agent = f.agent;
      if (f.team !== undefined) {
        const team = await teamNamed(client, f.team);
        teamId = team.teamId;
        agent = (await agentOfTeam(client, team, f.agent)).agentId;
      }
      const forwardAddress = (await client.request('settings.get', {})).tunnel.forwardTo;
      // Listening before the delivery is made, so its first forward cannot be missed.
      const forwards = new Map<string, ForwardResultDTO>();
      let seen: ((f: ForwardResultDTO) => void) | null = null;
      client.on('tunnel.forward', (fw) => {
        if (fw.replay !== undefined) return;
        forwards.set(fw.deliveryId, fw);
        seen?.(fw);
      });
      if (forwardAddress !== null) await client.listening();
      let d;
      try {
        d = await client.request('tunnel.simulate', {
          agentId: agent,
          type: f.type ?? 'text',
          from: f.from ?? DEFAULT_FROM,
          ...(teamId !== undefined ? { teamId } : {}),
          ...(f.text !== undefined ? { text: f.text } : {}),
          ...(f.caption !== undefined ? { caption: f.caption } : {}),
          ...(f.filename !== undefined ? { filename: f.filename } : {}),
        });
      } catch (e) {
        if (e instanceof ContractError && e.dto.code === 'TUNNEL_NO_SECRET')
          throw new UsageError(
            `no signing secret for agent ${agent}: point its webhook at this companion first (\`channel-companion webhook set --team T --agent ${agent} --url …\`, or the Tunnel screen)`,
          );
        throw e;
      }
      out.event({ event: 'delivery', delivery: d }, summaryLine(d));
      let ok = true;

      if (forwardAddress !== null && d.verdict === 'simulated') {
        const timeoutMs = (f.timeout ?? 15) * 1000;
        let timer: unknown;
        const first = await Promise.race([
          new Promise<ForwardResultDTO>((resolve) => {
            const got = forwards.get(d.id);
            if (got) return resolve(got);
            seen = (fw) => fw.deliveryId === d.id && resolve(fw);
          }),
          new Promise<'timeout'>((resolve) => (timer = ctx.clock.setTimeout(() => resolve('timeout'), timeoutMs))),
          new Promise<'aborted'>((resolve) =>
            ctx.signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
          ),
        ]);
        ctx.clock.clearTimeout(timer);
        if (first === 'aborted') throw new CliFailure('cancelled', EXIT.interrupted, 'INTERRUPTED');
        if (first === 'timeout') {
          out.note(
            `no answer from ${redactCredentials(forwardAddress)} within ${f.timeout ?? 15} s; the delivery stays queued in the companion's log`,
          );
          ok = false;
        } else {
          out.event({ event: 'forward', forward: first }, forwardLine(first));
          if (!ok2xx(first)) {
            ok = false;
            out.note(
              session.where !== 'in-process'
                ? `your app did not accept it (${first.status ?? first.error ?? 'no answer'}); the companion keeps retrying it while it runs`
                : `your app did not accept it (${first.status ?? first.error ?? 'no answer'}); it stays queued in the log of ${session.dataDir}, retried once a companion runs for it (\`channel-companion up\`)`,
            );
          }
        }
      } else if (forwardAddress === null && f.forwardTo === undefined) {
        out.note('stored; not forwarded (no forward address in the settings, and no --forward-to)');
      }

      if (f.forwardTo !== undefined) {
        const a = await client.request('tunnel.replay', { id: d.id, mode: 'as-received', url: f.forwardTo });
        out.event({ event: 'forward', forward: a }, forwardLine(a));
        if (!ok2xx(a)) {
          ok = false;
          out.note(
            `your app did not accept it (${a.status ?? a.error ?? 'no answer'}); send it again with \`channel-companion deliveries replay ${d.id} --forward-to URL\``,
          );
        }
      }
      return ok ? EXIT.ok : EXIT.failure;
    });
  });
}
