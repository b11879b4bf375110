// `messages`: the conversations on the agents' numbers, from the data folder (the tunnel's verified
// message.received deliveries and the send log): the contacts with unread counts, or one thread
// (--with). --follow then prints each new message as it is stored. Read-only: nothing is marked
// read, cut or compacted, so it is safe while the app or `listen` writes the folder.
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { Messages, TunnelLogWatch, contactKey, type ContactSummary, type Message } from '../../core/messages';
import { sleep } from '../../core/ports';
import { findAgent } from '../../core/teams';
import { teamsOf } from '../teams-context';
import { defineAction, type CliContext } from '../context';
import { UsageError } from '../errors';
import { agentId, intString, parseFlags } from '../flags';
import type { Output } from '../output';
import { errorLine } from '../../../src-shared/error-advice';
import { messageLine } from '../../../src-shared/message-words';

/** --data-dir, or <config dir>/data: the folder the app and `listen` write. */
export function cliDataDir(
  ctx: CliContext,
  f: { dataDir?: string | undefined; configDir?: string | undefined },
): string {
  return f.dataDir !== undefined ? resolve(ctx.io.cwd, f.dataDir) : join(teamsOf(ctx).configDir(f.configDir), 'data');
}

const schema = z.object({
  team: z.string().trim().min(1, 'expected a team id or label').max(200).optional(),
  agent: agentId.optional(),
  with: z
    .string()
    .regex(/^\+?\d{6,15}$|^[^\s@]+@(s\.whatsapp\.net|g\.us)$/, 'expected a phone number (+15550102000) or a JID')
    .optional(),
  limit: intString(1, 10_000).optional(),
  follow: z.boolean().optional(),
  json: z.boolean().optional(),
  dataDir: z.string().min(1, 'expected a folder').optional(),
  configDir: z.string().min(1, 'expected a folder').optional(),
  pollMs: intString(50, 60_000).optional(),
});

function time(at: number): string {
  return new Date(at).toISOString().replace('T', ' ').slice(0, 16);
}

function shown(contact: string): string {
  return /^\d+$/.test(contact) ? `+${contact}` : contact;
}

function messageData(m: Message): Record<string, unknown> {
  const d: Record<string, unknown> = {
    agentId: m.agentId,
    contact: shown(m.contact),
    at: new Date(m.at).toISOString(),
    direction: m.direction,
    fromMe: m.fromMe,
    type: m.type,
    text: m.text,
  };
  if (m.media) d.media = m.media;
  if (m.messageId) d.messageId = m.messageId;
  if (m.status) d.status = m.status;
  if (m.error) d.error = m.error;
  if (m.via) d.via = m.via;
  return d;
}

/** A message in a thread, in the Messages screen's words ("from the phone", "Not sent: …"). */
function threadLine(m: Message, withContact: boolean): string {
  const who = m.direction === 'in' ? '←' : m.fromMe ? '→ (from the phone)' : '→';
  const status = m.status === 'failed' ? ` — Not sent: ${m.error ? errorLine(m.error) : 'no reason given.'}` : '';
  return `${time(m.at)}  ${withContact ? `${shown(m.contact)}  ` : ''}${who} ${messageLine(m)}${status}`;
}

function contactData(c: ContactSummary): Record<string, unknown> {
  return {
    agentId: c.agentId,
    contact: shown(c.contact),
    name: c.name ?? null,
    unread: c.unread,
    count: c.count,
    lastAt: new Date(c.lastAt).toISOString(),
    last: messageLine(c.last),
  };
}

function contactLine(c: ContactSummary, showAgent: boolean): string {
  const unread = c.unread > 0 ? `${c.unread} unread` : 'read';
  return `${shown(c.contact).padEnd(16)} ${(c.name ?? '').padEnd(16)} ${unread.padEnd(9)} ${time(c.lastAt)}  ${showAgent ? `${c.agentId}  ` : ''}${c.last.direction === 'out' ? 'You: ' : ''}${messageLine(c.last)}`;
}

export function register(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('messages')
    .description(
      "the conversations on the agents' numbers: contacts with unread counts, or one thread (--with); read-only",
    )
    .option('--team <name>', 'only the agents of this saved team (id or label)')
    .option('--agent <id>', 'only this agent')
    .option('--with <number>', "one thread: the contact's number (+15550102000)")
    .option('--limit <n>', 'how many contacts, or messages of the thread (the latest)', '50')
    .option('--follow', 'then print each new message as it is stored (Ctrl-C stops)')
    .option('--data-dir <dir>', 'data folder, as for `serve` (default: <config dir>/data)')
    .option('--config-dir <dir>', 'where saved teams live (default: the app config folder; env CHANNEL_COMPANION_HOME)')
    .option('--json', 'JSON: one object per contact or message, one a line');
  cmd.addOption(
    cmd.createOption('--poll-ms <ms>', 'how often --follow looks for new messages').default('1000').hideHelp(),
  );

  defineAction(ctx, cmd, async (opts, out) => {
    const f = parseFlags(schema, opts);
    let agentIds: string[] | undefined;
    if (f.team !== undefined) {
      const { team } = await teamsOf(ctx).team(f.team, f.configDir);
      const ids = team.agents.map((a) => a.agentId);
      if (f.agent !== undefined) {
        const one = findAgent(team.agents, f.agent);
        if (!one) throw new UsageError(`--agent: the team "${team.label}" has no agent "${f.agent}"`);
        agentIds = [one.agentId];
      } else agentIds = ids;
    } else if (f.agent !== undefined) agentIds = [f.agent];
    if (f.with !== undefined && (agentIds === undefined || agentIds.length !== 1)) {
      throw new UsageError('--with: name the agent too (--agent, with --team when it is a label)');
    }

    const dataDir = cliDataDir(ctx, f);
    const messages = new Messages({ dataDir, now: () => ctx.clock.now(), readOnly: true });
    const watch = new TunnelLogWatch(join(dataDir, 'tunnel'), ctx.clock);
    await messages.open(await watch.read());
    const limit = f.limit ?? 50;
    const contact = f.with !== undefined ? contactKey(f.with) : undefined;

    if (contact !== undefined) {
      const { messages: list, more } = messages.thread(agentIds![0]!, contact, { limit });
      if (out.json) for (const m of list) out.event(messageData(m));
      else {
        const name = messages.name(contact);
        out.event(
          {},
          `${shown(contact)}${name ? ` (${name})` : ''} on ${agentIds![0]}${more ? ` — the latest ${list.length}` : ''}`,
        );
        if (list.length === 0) out.event({}, '  (no messages)');
        for (const m of list) out.event({}, threadLine(m, false));
      }
    } else {
      const list = messages.contacts(agentIds ? { agentIds } : {}).slice(0, limit);
      if (out.json) for (const c of list) out.event(contactData(c));
      else if (list.length === 0)
        out.note(`no messages in ${dataDir} (the app or \`listen\` stores what the agents' webhooks deliver here)`);
      else for (const c of list) out.event({}, contactLine(c, agentIds === undefined || agentIds.length > 1));
    }
    if (f.follow === true) await follow(ctx, out, messages, watch, { agentIds, contact }, f.pollMs ?? 1000);
  });
}

async function follow(
  ctx: CliContext,
  out: Output,
  messages: Messages,
  watch: TunnelLogWatch,
  only: { agentIds: string[] | undefined; contact: string | undefined },
  pollMs: number,
): Promise<void> {
  const wanted = (m: Message) =>
    (only.agentIds === undefined || only.agentIds.includes(m.agentId)) &&
    (only.contact === undefined || m.contact === only.contact);
  for (;;) {
    try {
      await sleep(ctx.clock, pollMs, ctx.signal);
    } catch {
      return;
    }
    for (const m of await messages.refresh((await watch.readIfChanged()) ?? undefined)) {
      if (!wanted(m)) continue;
      if (out.json) out.event(messageData(m));
      else out.event({}, threadLine(m, only.contact === undefined));
    }
  }
}
