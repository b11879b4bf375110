// `messages`: the conversations on the agents' numbers, from the data folder's companion (the one that
// keeps them): the contacts with unread counts, one thread (--with), a search over every conversation
// (--search), a conversation exported (--export) or deleted (--delete, asked first). --follow then prints
// each new message as the companion stores it. Nothing is marked read. What others wrote is printed with
// its control and bidi characters escaped (src-shared/terminal-text.ts); --json prints the contract's DTOs.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import type { MessageContactDTO, MessageDTO, TeamDTO } from '../../../src-shared/contract';
import { errorLine } from '../../../src-shared/error-advice';
import { messageLine, shownContact } from '../../../src-shared/message-words';
import { terminalSafe } from '../../../src-shared/terminal-text';
import { sentByWords } from '../../../src-shared/words';
import { defineAction, type CliContext } from '../context';
import { addCompanionOptions, connectCompanion } from '../companion';
import { teamIn } from '../companion-run';
import { confirm } from '../confirm';
import { CliFailure, UsageError } from '../errors';
import { EXIT } from '../exit-codes';
import { agentId, intString, parseFlags } from '../flags';
import type { Output } from '../output';

const schema = z
  .object({
    team: z.string().trim().min(1, 'expected a team id or label').max(200).optional(),
    agent: agentId.optional(),
    with: z
      .string()
      .trim()
      .regex(
        /^\+?[\d\s().-]{6,24}$|^[^\s@]+@(s\.whatsapp\.net|g\.us)$/,
        'expected a phone number (+15550102000) or a JID',
      )
      .optional(),
    search: z.string().trim().min(1, 'expected words to search for').max(200, 'at most 200 characters').optional(),
    export: z.enum(['jsonl', 'csv', 'text'], { error: 'expected jsonl, csv or text' }).optional(),
    output: z.string().min(1, 'expected a file path').optional(),
    delete: z.boolean().optional(),
    yes: z.boolean().optional(),
    limit: intString(1, 10_000).optional(),
    follow: z.boolean().optional(),
    json: z.boolean().optional(),
    dataDir: z.string().min(1, 'expected a folder').optional(),
    configDir: z.string().min(1, 'expected a folder').optional(),
  })
  .refine((f) => !((f.export || f.delete) && f.with === undefined), {
    message: 'name the conversation with --with',
    path: ['with'],
  })
  .refine((f) => [f.search !== undefined, f.export !== undefined, f.delete === true].filter(Boolean).length <= 1, {
    message: 'give one of --search, --export and --delete',
    path: ['search'],
  })
  .refine((f) => !(f.follow && (f.export || f.delete)), { message: '--follow lists; leave it out', path: ['follow'] });

function time(at: number): string {
  return new Date(at).toISOString().replace('T', ' ').slice(0, 16);
}

/** The number as the contract takes it (digits, no +), or a JID as it is. */
function phoneArg(s: string): string {
  return s.includes('@') ? s : s.replace(/\D/g, '');
}

/** A message in a thread, in the Messages screen's words ("from the phone", "Not sent: …"). */
function threadLine(m: MessageDTO, opts: { contact: boolean; agent: boolean }): string {
  const who = m.direction === 'in' ? '←' : m.fromMe ? '→ (from the phone)' : '→';
  const status = m.status === 'failed' ? ` — Not sent: ${m.error ? errorLine(m.error) : 'no reason given.'}` : '';
  const where = [opts.agent ? m.agentId : null, opts.contact ? shownContact(m.contact) : null]
    .filter(Boolean)
    .join(' ');
  const simulated = m.simulated ? ' (simulated, not from WhatsApp)' : '';
  const by = m.direction === 'out' && m.sentBy !== undefined ? ` — ${terminalSafe(sentByWords(m.sentBy))}` : '';
  return `${time(m.at)}  ${where ? `${where}  ` : ''}${who} ${terminalSafe(messageLine(m))}${status}${simulated}${by}`;
}

function contactLine(c: MessageContactDTO, showAgent: boolean): string {
  const unread = `${c.unread > 0 ? `${c.unread} unread` : 'read'}${c.simulated ? ' (simulated)' : ''}`;
  const name = terminalSafe(c.name ?? '');
  return `${shownContact(c.contact).padEnd(16)} ${name.padEnd(16)} ${unread.padEnd(9)} ${time(c.lastAt)}  ${showAgent ? `${c.agentId}  ` : ''}${c.last.direction === 'out' ? 'You: ' : ''}${terminalSafe(messageLine(c.last))}`;
}

/** The agents asked for: --team (id or label) and --agent (id or label), as the screens' pickers name them. */
function scope(
  teams: TeamDTO[],
  agents: Array<{ teamId: string; agentId: string; label: string }>,
  f: { team?: string | undefined; agent?: string | undefined },
): { teamId?: string; agentId?: string; one: { teamId: string; agentId: string } | null } {
  let team: TeamDTO | undefined;
  if (f.team !== undefined) team = teamIn(teams, f.team);
  if (f.agent === undefined) return { ...(team ? { teamId: team.teamId } : {}), one: null };
  const want = f.agent.toLowerCase();
  const matches = agents.filter(
    (a) => (!team || a.teamId === team.teamId) && (a.agentId.toLowerCase() === want || a.label.toLowerCase() === want),
  );
  if (matches.length === 0)
    throw new UsageError(
      `--agent: ${team ? `the team "${team.label}" has` : 'the saved teams have'} no agent "${f.agent}"`,
    );
  if (matches.length > 1) throw new UsageError(`--agent: "${f.agent}" is in several teams: name the team with --team`);
  const one = matches[0]!;
  return { teamId: one.teamId, agentId: one.agentId, one };
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = addCompanionOptions(
    program
      .command('messages')
      .description(
        "the conversations on the agents' numbers: contacts with unread counts, one thread (--with), search, export, delete",
      )
      .option('--team <name>', 'only the agents of this saved team (id or label)')
      .option('--agent <id>', 'only this agent (id or label)')
      .option(
        '--with <number>',
        "one conversation: the contact's number, in any form (+1 555 010 2000); --agent when several agents have one with it",
      )
      .option(
        '--search <words>',
        'messages and contacts matching these words, a name or a number, in every conversation',
      )
      .option('--export <format>', 'with --with: the conversation as jsonl, csv or text (to stdout, or --output)')
      .option('--output <file>', 'with --export: write it to this file (0600) instead of stdout')
      .option('--delete', 'with --with: delete the conversation for good (asks first; --yes without a terminal)')
      .option('--yes', 'with --delete: do not ask')
      .option('--limit <n>', 'how many contacts, search hits, or messages of the thread (the latest)', '50')
      .option('--follow', 'then print each new message as it is stored (Ctrl-C stops)'),
  ).option('--json', 'JSON: the contract DTOs, one object per contact or message, one a line');

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(schema, opts);
    const session = await connectCompanion(ctx, out, f, { none: 'start' });
    const { client } = session;
    try {
      const teams = await client.request('teams.list', {});
      const agents = await client.request('agents.list', {});
      const s = scope(teams, agents, f);
      const limit = f.limit ?? 50;
      const manyAgents = s.one === null;

      if (f.with !== undefined) {
        const one = s.one ?? (await conversationAgent(client, agents, s, f.with));
        const at = { teamId: one.teamId, agentId: one.agentId, phone: phoneArg(f.with) };
        if (f.export !== undefined) return await exportThread(ctx, out, client, at, f.export, f.output);
        if (f.delete === true) {
          const ok = await confirm(
            ctx,
            `Delete the conversation with ${shownContact(at.phone)} on ${at.agentId}? ${
              session.hub
                ? "Its messages are removed from the team hub for good, for every member (its database's rows and files)."
                : "Its messages are removed from this computer for good (the data folder, the media cache and the webhook log's copies)."
            }`,
            f.yes,
          );
          if (!ok) {
            out.note('nothing deleted');
            return EXIT.failure;
          }
          await client.request('messages.deleteConversation', at);
          out.result(
            { event: 'deleted', ...at },
            `deleted the conversation with ${shownContact(at.phone)} on ${at.agentId}`,
          );
          return EXIT.ok;
        }
        const thread = await client.request('messages.thread', { ...at, limit });
        if (out.json) for (const m of thread.messages) out.event({ ...m });
        else {
          out.event(
            {},
            `${shownContact(at.phone)}${thread.name ? ` (${terminalSafe(thread.name)})` : ''} on ${at.agentId}${thread.more ? ` — the latest ${thread.messages.length}` : ''}`,
          );
          if (thread.messages.length === 0) out.event({}, '  (no messages)');
          for (const m of thread.messages) out.event({}, threadLine(m, { contact: false, agent: false }));
        }
      } else if (f.search !== undefined) {
        const found = await client.request('messages.search', {
          query: f.search,
          ...(s.teamId !== undefined ? { teamId: s.teamId } : {}),
          ...(s.agentId !== undefined ? { agentId: s.agentId } : {}),
          limit,
        });
        if (out.json) {
          for (const c of found.contacts) out.event({ kind: 'contact', ...c });
          for (const m of found.messages) out.event({ kind: 'message', ...m });
        } else if (found.contacts.length + found.messages.length === 0) out.note(`nothing matches "${f.search}"`);
        else {
          for (const c of found.contacts) out.event({}, contactLine(c.contact, true));
          for (const m of found.messages) out.event({}, threadLine(m.message, { contact: true, agent: true }));
        }
      } else {
        const list = await client.request('messages.contacts', {
          ...(s.teamId !== undefined ? { teamId: s.teamId } : {}),
          ...(s.agentId !== undefined ? { agentId: s.agentId } : {}),
        });
        const contacts = list.contacts.slice(0, limit);
        if (out.json) for (const c of contacts) out.event({ ...c });
        else if (contacts.length === 0)
          out.note(
            `no messages yet in ${session.dataDir} (the companion stores what the agents' webhooks deliver to its receiver)`,
          );
        else for (const c of contacts) out.event({}, contactLine(c, manyAgents));
        for (const a of list.agents) if (a.reason && !out.json) out.note(`${a.agentId}: ${a.reason}`);
      }
      if (f.follow === true)
        await follow(ctx, out, session.client, s, f.with !== undefined ? phoneArg(f.with) : undefined);
      return EXIT.ok;
    } finally {
      await session.close();
    }
  });
}

/**
 * The agent of --with's conversation when --agent is not given: the one agent (of --team) that has a conversation with
 * the number, or the only agent there is; a UsageError naming the agents when several have one, or none does.
 */
async function conversationAgent(
  client: import('../../app/client').ContractClient,
  agents: Array<{ teamId: string; agentId: string }>,
  s: { teamId?: string },
  contact: string,
): Promise<{ teamId: string; agentId: string }> {
  const phone = phoneArg(contact);
  const list = await client.request('messages.contacts', {
    ...(s.teamId !== undefined ? { teamId: s.teamId } : {}),
    ...(phone.includes('@') ? {} : { search: phone }),
  });
  const inScope = agents.filter((a) => s.teamId === undefined || a.teamId === s.teamId);
  const found = inScope.filter((a) =>
    list.contacts.some(
      (c) => phoneArg(c.contact) === phone && c.agentId === a.agentId && (c.teamId ?? a.teamId) === a.teamId,
    ),
  );
  if (found.length === 1) return found[0]!;
  if (found.length === 0 && inScope.length === 1) return inScope[0]!;
  if (found.length === 0)
    throw new UsageError(
      `--with: no agent has a conversation with ${shownContact(phone)}; name the agent with --agent`,
    );
  throw new UsageError(
    `--with: ${shownContact(phone)} has conversations with several agents (${found.map((c) => c.agentId).join(', ')}): name one with --agent (and --team when it is in several)`,
  );
}

async function exportThread(
  ctx: CliContext,
  out: Output,
  client: import('../../app/client').ContractClient,
  at: { teamId: string; agentId: string; phone: string },
  format: 'jsonl' | 'csv' | 'text',
  output: string | undefined,
): Promise<number> {
  const file = await client.request('messages.export', { ...at, format });
  if (output === undefined) {
    ctx.io.stdout.write(file.content);
    return EXIT.ok;
  }
  const where = resolve(ctx.io.cwd, output);
  try {
    await writeFile(where, file.content, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliFailure(
      code === 'EEXIST'
        ? `--output ${output}: the file exists; give another name (nothing is overwritten)`
        : `--output ${output}: cannot write it (${code ?? 'error'})`,
      EXIT.failure,
      'OUTPUT',
    );
  }
  out.result(
    { event: 'exported', format, file: where, count: file.count },
    `${file.count} message${file.count === 1 ? '' : 's'} written to ${where}`,
  );
  return EXIT.ok;
}

/** Each new message the companion stores, as it comes, until Ctrl-C or until the companion stops. */
async function follow(
  ctx: CliContext,
  out: Output,
  client: import('../../app/client').ContractClient,
  s: { teamId?: string; agentId?: string },
  contact: string | undefined,
): Promise<void> {
  const wanted = (m: MessageDTO) =>
    (s.teamId === undefined || m.teamId === s.teamId) &&
    (s.agentId === undefined || m.agentId === s.agentId) &&
    (contact === undefined || phoneArg(m.contact) === contact);
  client.on('messages.new', ({ message }) => {
    if (!wanted(message)) return;
    if (out.json) out.event({ ...message });
    else out.event({}, threadLine(message, { contact: contact === undefined, agent: s.agentId === undefined }));
  });
  await client.listening();
  const stopped = new Promise<string>((r) => client.onClose(r));
  const aborted = new Promise<null>((r) => {
    if (ctx.signal.aborted) r(null);
    ctx.signal.addEventListener('abort', () => r(null), { once: true });
  });
  const why = await Promise.race([aborted, stopped]);
  if (why !== null) out.warn(`${why}: no more messages will be seen`);
}
