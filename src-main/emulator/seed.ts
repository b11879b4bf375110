// The emulator's seed: teams, their keys and agents, and the numbers that "exist" on WhatsApp.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { dialectListSchema } from './dialect';
import { describeZodError } from './http';
import { scriptedContactSchema } from './scripted';

const phoneDigits = z.string().regex(/^\+?\d{8,15}$/, 'expected an E.164 number (8–15 digits, optional +)');

const seedAgentSchema = z.strictObject({
  agentId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'expected 1–128 letters, digits, dot, dash or underscore'),
  label: z.string().max(200).optional(),
  state: z.enum(['unlinked', 'connected', 'reconnecting']).optional(),
  phone: phoneDigits.optional(),
  /** Extra: a connected agent that drops by itself for downSeconds at the end of every everySeconds. */
  flaky: z.strictObject({ everySeconds: z.number().positive(), downSeconds: z.number().positive() }).optional(),
  /** Dialect names of this agent's answers (dialect.ts), over its team's. */
  dialect: dialectListSchema.optional(),
});

const seedTeamSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'expected 1–128 letters, digits, dot, dash or underscore'),
  name: z.string().max(200).optional(),
  apiKey: z.string().regex(/^[\x21-\x7e]{8,256}$/, 'expected 8–256 printable characters without spaces'),
  monthlyQuota: z.number().int().nonnegative().optional(),
  sendsPerMinute: z.number().int().positive().optional(),
  /** Dialect names of the team's answers (dialect.ts). */
  dialect: dialectListSchema.optional(),
  agents: z.array(seedAgentSchema),
});

const seedSchema = z
  .strictObject({
    teams: z.array(seedTeamSchema),
    contacts: z.array(phoneDigits).optional(),
    /** Contacts that answer what agents send them (scripted.ts). */
    scriptedContacts: z.array(scriptedContactSchema).optional(),
  })
  .superRefine((seed, ctx) => {
    const teamIds = new Set<string>();
    const keys = new Set<string>();
    const agentIds = new Set<string>();
    seed.teams.forEach((team, ti) => {
      if (teamIds.has(team.id))
        ctx.addIssue({ code: 'custom', path: ['teams', ti, 'id'], message: `duplicate team id "${team.id}"` });
      teamIds.add(team.id);
      if (keys.has(team.apiKey))
        ctx.addIssue({ code: 'custom', path: ['teams', ti, 'apiKey'], message: 'duplicate apiKey' });
      keys.add(team.apiKey);
      team.agents.forEach((agent, ai) => {
        if (agentIds.has(agent.agentId))
          ctx.addIssue({
            code: 'custom',
            path: ['teams', ti, 'agents', ai, 'agentId'],
            message: `duplicate agentId "${agent.agentId}"`,
          });
        agentIds.add(agent.agentId);
      });
    });
  });

export type EmulatorSeed = z.infer<typeof seedSchema>;

class SeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedError';
  }
}

/** Validates a seed object; the error names the bad field, e.g. `teams[0].apiKey: …`. */
export function parseSeed(value: unknown, source = 'seed'): EmulatorSeed {
  const result = seedSchema.safeParse(value);
  if (!result.success) throw new SeedError(`invalid ${source}: ${describeZodError(result.error.issues, 'seed')}`);
  return result.data;
}

export async function loadSeedFile(path: string): Promise<EmulatorSeed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SeedError(`cannot read seed file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SeedError(`seed file ${path} is not valid JSON`);
  }
  return parseSeed(json, `seed file ${path}`);
}

const DEMO_TEAM_ID = 'demo';
const DEMO_API_KEY = 'demo-key-0123456789abcdef';

/** Team "demo" with three agents: connected, unlinked, and flaky (connected, drops by itself). */
/**
 * The demo team's scripted contact: it answers every message an agent sends it.
 */
const DEMO_SCRIPTED_CONTACT = '15550100042';

export function defaultSeed(): EmulatorSeed {
  return {
    teams: [
      {
        id: DEMO_TEAM_ID,
        name: 'Demo team',
        apiKey: DEMO_API_KEY,
        monthlyQuota: 10_000,
        sendsPerMinute: 60,
        agents: [
          { agentId: 'agent-connected', label: 'Support bot', state: 'connected', phone: '15550100001' },
          { agentId: 'agent-unlinked', label: 'New agent', state: 'unlinked' },
          {
            agentId: 'agent-flaky',
            label: 'Flaky line',
            state: 'connected',
            phone: '15550100003',
            flaky: { everySeconds: 90, downSeconds: 15 },
          },
        ],
      },
    ],
    contacts: ['15550100001', '15550100002', '15550100003', '15551234567'],
    // The demo inbox is alive: this contact answers each message sent to it (every third answer a picture).
    scriptedContacts: [{ phone: DEMO_SCRIPTED_CONTACT, name: 'Robin (demo contact)', rule: 'echo', imageEvery: 3 }],
  };
}
