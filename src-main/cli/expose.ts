// `listen --expose ngrok` / `--expose-cmd '<command with {port}>'`: the receiver at a public URL
// (core/expose), its status as lines (JSON: {"event":"exposure",…}), and on stop the plain truth
// that the service still points at the dead URL and how to point it elsewhere.
import type { Command } from 'commander';
import { z } from 'zod';
import { ExposureController, readNgrokAuthtoken, type ExposeRequest, type ExposureStatus } from '../app/expose';
import { teamsOf } from './teams-context';
import type { CliContext } from './context';
import { intString } from './flags';
import type { Output } from './output';

export const exposeFlags = {
  expose: z.literal('ngrok', { error: 'expected "ngrok" (for any other tunnel program use --expose-cmd)' }).optional(),
  exposeCmd: z
    .string()
    .trim()
    .min(1, 'the command is empty')
    .max(4000)
    .includes('{port}', { message: "put {port} where the receiver's port goes" })
    .optional(),
  ngrokDomain: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,253}$/, 'expected a domain name')
    .optional(),
  exposeTimeout: intString(1, 600).optional(),
};

type ExposeFlags = {
  expose?: 'ngrok' | undefined;
  exposeCmd?: string | undefined;
  ngrokDomain?: string | undefined;
  exposeTimeout?: number | undefined;
};

export const oneExposure: [(f: ExposeFlags) => boolean, { message: string; path: string[] }] = [
  (f) => !(f.expose !== undefined && f.exposeCmd !== undefined),
  { message: 'give either --expose ngrok or --expose-cmd, not both', path: ['expose'] },
];

export function addExposeOptions(cmd: Command): Command {
  return cmd
    .option(
      '--expose <ngrok>',
      'open a public HTTPS URL with ngrok (authtoken from the keychain: `secret set ngrok-authtoken`)',
    )
    .option(
      '--expose-cmd <command>',
      "run your own tunnel program, {port} replaced by the receiver's port (e.g. 'cloudflared tunnel --url http://127.0.0.1:{port}'); its first public URL is used",
    )
    .option('--ngrok-domain <domain>', 'with --expose ngrok: a domain reserved in your ngrok dashboard')
    .option('--expose-timeout <s>', 'seconds the exposure may take to come up (default 30)');
}

export function wantsExposure(f: ExposeFlags): boolean {
  return f.expose !== undefined || f.exposeCmd !== undefined;
}

function statusData(s: ExposureStatus): Record<string, unknown> {
  return { event: 'exposure', state: s.state, kind: s.kind, url: s.url, ...(s.error ? { error: s.error } : {}) };
}

function statusLine(s: ExposureStatus): string | undefined {
  switch (s.state) {
    case 'starting':
      return s.kind === 'ngrok' ? 'exposing the receiver with ngrok…' : 'running the exposure command…';
    case 'up':
      return `public URL: ${s.url}`;
    case 'stopped':
      return `stopped exposing ${s.url}`;
    default:
      return undefined;
  }
}

/**
 * The exposure of the receiver, printing its status as it changes (a failure is a warning: the local
 * receiver keeps running), and what it is asked to run. `knownSecrets`: the keys and secrets no
 * variable handed to the tunnel program may hold (cli/known-secrets.ts). Ctrl-C while it comes up
 * stops it at once.
 */
export function receiverExposure(
  ctx: CliContext,
  out: Output,
  f: ExposeFlags,
  knownSecrets: () => Promise<string[]>,
): {
  controller: ExposureController;
  request: ExposeRequest;
  start(port: number, request: ExposeRequest): Promise<ExposureStatus>;
  status(): ExposureStatus;
} {
  const controller = new ExposureController({
    ngrokAuthtoken: () => readNgrokAuthtoken(teamsOf(ctx).secrets()),
    knownSecrets,
    clock: ctx.clock,
    ...(f.exposeTimeout !== undefined ? { timeoutMs: f.exposeTimeout * 1000 } : {}),
  });
  controller.on('status', (s) => {
    if (s.state === 'failed' && s.error) out.warn(`${s.error.message} — ${s.error.hint}`);
    out.event(statusData(s), statusLine(s));
  });
  const request: ExposeRequest =
    f.exposeCmd !== undefined
      ? { kind: 'command', command: f.exposeCmd, env: ctx.io.env }
      : { kind: 'ngrok', ...(f.ngrokDomain ? { domain: f.ngrokDomain } : {}) };
  return {
    controller,
    request,
    status: () => controller.status(),
    async start(port, req) {
      const onAbort = () => void controller.stop();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await controller.start(port, req);
      } finally {
        ctx.signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

/**
 * Stops the exposure and says where the service still sends deliveries: `registered` are the hook
 * URLs this run registered (the service offers no way to remove a webhook).
 */
export async function stopExposure(
  out: Output,
  controller: ExposureController,
  registered: Array<{ agentId: string; url: string }>,
  teamFlag: string | undefined,
): Promise<void> {
  const was = controller.status();
  await controller.stop();
  if (registered.length === 0 || was.url === null) return;
  const how = teamFlag !== undefined ? `--team ${teamFlag} ` : '';
  out.event(
    { event: 'still-registered', hooks: registered, reason: 'the service offers no way to remove a webhook' },
    [
      `The service still sends deliveries to ${was.url}, which no longer answers (it offers no way to remove a webhook):`,
      ...registered.map((r) => `  ${r.agentId}: ${r.url}`),
      `Point them elsewhere with \`channel-companion webhook set ${how}--agent <agent> --url <url>\`, or run \`listen\` with --expose again (it registers the new URL).`,
    ].join('\n'),
  );
}
