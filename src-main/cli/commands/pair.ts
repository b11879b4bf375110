// `pair`: starts pairing, polls the session every second, shows the QR in the terminal (re-drawn
// when it rotates), and waits until the number is connected, --timeout passes, or Ctrl-C.
// Decisions come from needsScan/qr/connected, never from the state name (ASSUMPTION A-PAIRING).
// With --team it asks the companion (pairing.start, pairing.session: the screens' pairing, its clock and the
// monitor told at once); given by --base-url and a key from the environment, the service directly.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { sleep } from '../../app/ports';
import type { SessionStatus } from '../../app/service';
import { COMPANION_DATA_DIR_HELP } from '../companion';
import { HUB_FLAG_HELP } from '../hub-client';
import { teamAgentOf, teamFlag, withCompanion } from '../companion-run';
import { defineAction, type CliContext } from '../context';
import { CliFailure, Interrupted } from '../errors';
import { EXIT } from '../exit-codes';
import { parseFlags, secondsString } from '../flags';
import type { Output } from '../output';
import { decodeQrPng, pngFromDataUrl, renderQrForTerminal } from '../qr';
import { addTargetOptions } from '../target';

const flagsSchema = z.looseObject({
  timeout: secondsString.optional(),
  qrFile: z.string().min(1, 'expected a file path').optional(),
});

const DEFAULT_TIMEOUT_S = 180;

/** Where the session is read and the pairing started: the companion, or the service directly. */
interface Pairing {
  agentId: string;
  session(): Promise<Pick<SessionStatus, 'connected' | 'needsScan' | 'qr' | 'phone'>>;
  start(): Promise<void>;
}

async function showQr(
  ctx: CliContext,
  out: Output,
  dataUrl: string,
  rotation: number,
  qrFile: string | undefined,
): Promise<void> {
  const png = pngFromDataUrl(dataUrl);
  const text = png ? decodeQrPng(png) : null;
  if (png && qrFile) await writeFile(qrFile, png);
  out.event({ event: 'qr', rotation, text, ...(qrFile ? { qrFile } : {}) });
  // The drawing goes to stdout for a person, to stderr when stdout carries JSON.
  const draw = (s: string) => (out.json ? out.stderrRaw(s) : ctx.io.stdout.write(s));
  if (text) {
    draw(`\n${await renderQrForTerminal(text)}\n`);
    draw(
      `Scan with WhatsApp: Settings → Linked devices → Link a device${rotation > 1 ? ` (new code #${rotation})` : ''}\n`,
    );
  } else {
    out.note(
      `the QR could not be decoded for the terminal${qrFile ? `; open ${qrFile}` : '; use --qr-file PATH to save the image'}`,
    );
  }
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = addTargetOptions(
    program.command('pair').description("link the agent's number: show the pairing QR until it is scanned"),
  );
  cmd
    .option('--timeout <seconds>', `give up after this long (default ${DEFAULT_TIMEOUT_S})`)
    .option('--qr-file <path>', 'also save the QR image (PNG) to this file, updated when it rotates')
    .option('--data-dir <dir>', `with --team: the ${COMPANION_DATA_DIR_HELP}`)
    .option('--hub <url>', HUB_FLAG_HELP)
    .option('--json', 'one JSON object per line on stdout (qr events, then the result)');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(flagsSchema, opts);
    const team = teamFlag(opts);
    if (team !== undefined)
      return withCompanion(ctx, out, opts, async (client) => {
        const t = await teamAgentOf(client, { team, agent: typeof opts.agent === 'string' ? opts.agent : undefined });
        const ids = { teamId: t.teamId, agentId: t.agentId };
        return pair(out, f, {
          agentId: t.agentId,
          session: () => client.request('pairing.session', ids),
          start: async () => void (await client.request('pairing.start', ids)),
        });
      });
    const target = await ctx.resolveTarget(opts);
    const client = ctx.client(target);
    const call = { signal: ctx.signal };
    return pair(out, f, {
      agentId: target.agentId,
      session: () => client.getSession(target.agentId, call),
      start: async () => void (await client.startPairing(target.agentId, call)),
    });
  });

  async function pair(out: Output, f: z.output<typeof flagsSchema>, p: Pairing): Promise<number> {
    const qrFile = f.qrFile ? resolve(ctx.io.cwd, f.qrFile) : undefined;
    const deadline = ctx.clock.now() + (f.timeout ?? DEFAULT_TIMEOUT_S) * 1000;

    const connected = (s: Pick<SessionStatus, 'phone'>, already: boolean) => {
      out.result(
        { agentId: p.agentId, status: 'connected', phone: s.phone, alreadyConnected: already },
        `connected: +${s.phone ?? '?'}${already ? ' (already linked)' : ''}`,
      );
      return EXIT.ok;
    };

    let status = await p.session();
    if (status.connected) return connected(status, true);
    if (!status.needsScan)
      out.note('the number is still linked and reconnecting; no scan is needed — waiting for it to come back');
    else await p.start();

    let lastQr: string | null = null;
    let rotation = 0;
    let first = true;
    for (;;) {
      if (!first) {
        const left = deadline - ctx.clock.now();
        if (left <= 0) break;
        try {
          await sleep(ctx.clock, Math.min(ctx.pairPollMs, left), ctx.signal);
        } catch {
          throw new Interrupted('pairing cancelled');
        }
      }
      first = false;
      status = await p.session();
      if (status.connected) return connected(status, false);
      if (status.qr && status.qr !== lastQr) {
        lastQr = status.qr;
        rotation++;
        await showQr(ctx, out, status.qr, rotation, qrFile);
      } else if (status.needsScan && !status.qr && lastQr !== null) {
        // The pairing window expired (back to unlinked): start a new one.
        out.note('the pairing code expired; requesting a new one');
        lastQr = null;
        await p.start();
      }
      if (ctx.clock.now() >= deadline) break;
    }
    throw new CliFailure(
      `not connected after ${f.timeout ?? DEFAULT_TIMEOUT_S} s; run pair again`,
      EXIT.failure,
      'PAIR_TIMEOUT',
    );
  }
}
