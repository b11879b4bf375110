// Asking before a command does something that cannot be undone from here (replacing an agent's
// webhook, showing a secret): only at a terminal; without one the command refuses unless --yes.
import type { CliContext } from './context';
import { UsageError } from './errors';

/** stdin is a terminal and the CLI can ask there. */
export function atTerminal(ctx: CliContext): boolean {
  return ctx.io.stdin?.isTTY === true && ctx.io.ask !== undefined;
}

/**
 * true when `--yes` was given or the person answered yes at the terminal; false when they said no.
 * Without a terminal (and without --yes): a UsageError that states the question (nothing was done).
 */
export async function confirm(ctx: CliContext, question: string, yes: boolean | undefined): Promise<boolean> {
  if (yes === true) return true;
  if (!atTerminal(ctx))
    throw new UsageError(
      `${question}\nThere is no terminal to ask at (stdin is not a TTY): give --yes to go ahead without the question.`,
    );
  const answer = await ctx.io.ask!(`${question}\nGo ahead? [y/N] `);
  return /^\s*y(es)?\s*$/i.test(answer);
}
