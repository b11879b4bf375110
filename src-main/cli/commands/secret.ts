// `secret set|status|delete <name>`: secrets the CLI and the app use besides API keys and signing
// secrets, kept in the OS keychain. Today: `ngrok-authtoken` (for `listen --expose ngrok` and the
// app's tunnel screen). The value is never a flag: it is read from stdin (typed without echo at a
// terminal, or piped) or from the environment variable named by --from-env; only a hint is printed.
import type { Command } from 'commander';
import { z } from 'zod';
import { deleteNgrokAuthtoken, ngrokAuthtokenHint, ngrokAuthtokenSchema, saveNgrokAuthtoken } from '../../app/expose';
import { teamsOf } from '../teams-context';
import { defineAction, type CliContext } from '../context';
import { CliFailure, Interrupted, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { envVarName, parseFlags } from '../flags';
import type { SecretInput } from '../io';

const NAMES = ['ngrok-authtoken'] as const;
const nameSchema = z.enum(NAMES, { error: `expected a secret name: ${NAMES.join(', ')}` });
const MAX_INPUT = 4096;

/** What was typed at the terminal, without echo, up to Enter. */
function readHidden(
  stdin: SecretInput & { setRawMode(mode: boolean): unknown },
  prompt: (s: string) => void,
): Promise<string> {
  prompt('Paste the ngrok authtoken (it is not shown), then press Enter: ');
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      prompt('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return (done(), resolve(typed));
        if (ch === '\u0003' || ch === '\u0004') return (done(), reject(new Interrupted('nothing stored')));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else if (typed.length < MAX_INPUT) typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** Everything piped in (its first line is the secret). */
function readPiped(stdin: SecretInput): Promise<string> {
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let all = '';
    stdin.on('data', (chunk: string) => {
      if (all.length < MAX_INPUT) all += chunk;
    });
    stdin.on('end', () => resolve(all.split(/\r?\n/)[0] ?? ''));
    stdin.on('error', (e) =>
      reject(new CliFailure(`could not read stdin: ${e instanceof Error ? e.message : String(e)}`)),
    );
    stdin.resume();
  });
}

export function register(program: Command, ctx: CliContext): void {
  const secret = program
    .command('secret')
    .description('secrets kept in the OS keychain besides API keys: ngrok-authtoken');

  const set = secret
    .command('set <name>')
    .description(
      'store a secret in the keychain, read from stdin (typed without echo, or piped) or from --from-env; only a hint is printed',
    )
    .option('--from-env <name>', 'read it from this environment variable instead of stdin')
    .option('--json', 'one JSON object on stdout');
  defineAction(ctx, set, async (opts, out, cmd) => {
    const name = parseFlags(nameSchema, cmd.args[0]);
    const f = parseFlags(z.object({ fromEnv: envVarName.optional() }), opts);
    let value: string;
    if (f.fromEnv !== undefined) {
      value = ctx.io.env[f.fromEnv] ?? '';
      if (!value.trim())
        throw new UsageError(`the environment variable ${f.fromEnv} is not set (it should hold the ${name})`);
    } else {
      const stdin = ctx.io.stdin;
      if (!stdin) throw new UsageError(`nothing to read the ${name} from: pipe it in, or give --from-env NAME`);
      value =
        stdin.isTTY && stdin.setRawMode
          ? await readHidden(
              stdin as SecretInput & { setRawMode(m: boolean): unknown },
              (s) => void ctx.io.stderr.write(s),
            )
          : await readPiped(stdin);
      if (!value.trim())
        throw new UsageError(`nothing was read from stdin: pipe the ${name} in, or give --from-env NAME`);
    }
    const valid = ngrokAuthtokenSchema.safeParse(value);
    if (!valid.success)
      throw new UsageError(`that is not an ngrok authtoken: ${valid.error.issues[0]?.message ?? 'invalid'}`);
    let hint: string;
    try {
      ({ hint } = await saveNgrokAuthtoken(teamsOf(ctx).secrets(), valid.data));
    } catch (e) {
      throw new CliFailure(
        `the ${name} could not be stored in the keychain: ${e instanceof Error ? e.message : String(e)}`,
        EXIT.failure,
        'KEYCHAIN',
      );
    }
    out.result({ name, stored: true, hint }, `${name} ${hint} stored in the keychain`);
  });

  const status = secret
    .command('status <name>')
    .description('whether the secret is stored (with a hint of it)')
    .option('--json', 'one JSON object on stdout');
  defineAction(ctx, status, async (_opts, out, cmd) => {
    const name = parseFlags(nameSchema, cmd.args[0]);
    const hint = await ngrokAuthtokenHint(teamsOf(ctx).secrets());
    out.result(
      { name, stored: hint !== null, hint },
      hint
        ? `${name} ${hint} is stored in the keychain`
        : `no ${name} is stored (set it with \`channel-companion secret set ${name}\`)`,
    );
  });

  const del = secret
    .command('delete <name>')
    .description('remove the secret from the keychain')
    .option('--json', 'one JSON object on stdout');
  defineAction(ctx, del, async (_opts, out, cmd) => {
    const name = parseFlags(nameSchema, cmd.args[0]);
    const deleted = await deleteNgrokAuthtoken(teamsOf(ctx).secrets());
    out.result({ name, deleted }, deleted ? `${name} deleted from the keychain` : `no ${name} was stored`);
  });
}
