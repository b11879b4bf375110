// The commander program: global settings (exit override, output routing, usage after errors) and
// one register() per command file.
import { Command } from 'commander';
import type { CliContext } from './context';
import { register as agent } from './commands/agent';
import { register as chat } from './commands/chat';
import { register as check } from './commands/check';
import { register as config } from './commands/config';
import { register as deliveries } from './commands/deliveries';
import { register as emulator } from './commands/emulator';
import { register as hub } from './commands/hub';
import { register as listen } from './commands/listen';
import { register as media } from './commands/media';
import { register as messages } from './commands/messages';
import { register as monitor } from './commands/monitor';
import { register as pair } from './commands/pair';
import { register as send } from './commands/send';
import { register as secret } from './commands/secret';
import { register as serve } from './commands/serve';
import { register as settings } from './commands/settings';
import { register as status } from './commands/status';
import { register as team } from './commands/team';
import { register as trigger } from './commands/trigger';
import { register as up } from './commands/up';
import { register as verify } from './commands/verify';
import { register as webhook } from './commands/webhook';

type RegisterCommand = (program: Command, ctx: CliContext) => void;

const COMMANDS: readonly RegisterCommand[] = [
  emulator,
  team,
  agent,
  config,
  status,
  pair,
  send,
  messages,
  check,
  settings,
  webhook,
  media,
  chat,
  verify,
  monitor,
  listen,
  trigger,
  deliveries,
  secret,
  serve,
  up,
  hub,
];

/** Hides a value given as `--flag=value` to an unknown flag (someone may try `--api-key=…`). */
function redactUnknownOption(text: string): string {
  return text.replace(/(unknown option '[^'=\s]*)=[^']*'/g, "$1=…'");
}

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('channel-companion');
  program
    .description(
      'Channel Companion: pair, send, check, chat and verify webhooks against the Agent Messaging Channel and Chat API (or its emulator)',
    )
    .version('0.1.0', '-V, --version')
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({
      writeOut: (s) => void ctx.io.stdout.write(s),
      writeErr: (s) => void ctx.io.stderr.write(s),
      outputError: (s, write) => write(redactUnknownOption(s)),
    });
  for (const reg of COMMANDS) reg(program, ctx);
  return program;
}
