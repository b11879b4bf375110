// The emulator's control surface, in-process. The HTTP routes under /_emulator call these.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sleep, type Clock } from '../core/ports';
import { chatScriptSchema } from './chat';
import { DIALECTS, dialectListSchema } from './dialect';
import type { DeliveryRecord, Deliveries } from './deliveries';
import { conflict, EmulatorError, notFound } from './errors';
import { faultInputSchema, type Fault, type FaultInput, type Faults } from './faults';
import { parseWith } from './http';
import { DEFAULT_MONTHLY_QUOTA, DEFAULT_SENDS_PER_MINUTE, monthSends, sendsInWindow } from './limits';
import { sampleBytes, type BlobStore } from './media';
import {
  keyHint,
  type Agent,
  type ChatRecord,
  type ChatScript,
  type SentMessage,
  type Team,
  type World,
} from './model';
import type { ServiceCounters } from './service';
import type { Sessions } from './session';
import type { EmulatorSeed } from './seed';
import { phone } from './validate';
import { ScriptedContacts, type ScriptedContact } from './scripted';
import type { WireChannelSettings, WireSession } from './wire';

/** How long a webhook PUT armed with deliverOnRegister waits for its delivery's first answer. */
const REGISTER_REPLY_WAIT_MS = 1_000;

const idSchema = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'expected 1–128 letters, digits, dot, dash or underscore');

const teamInputSchema = z.strictObject({
  id: idSchema.optional(),
  name: z.string().max(200).optional(),
  apiKey: z
    .string()
    .regex(/^[\x21-\x7e]{8,256}$/, 'expected 8–256 printable characters without spaces')
    .optional(),
  monthlyQuota: z.number().int().nonnegative().optional(),
  sendsPerMinute: z.number().int().positive().optional(),
  dialect: dialectListSchema.optional(),
});
type TeamInput = z.input<typeof teamInputSchema>;

const agentInputSchema = z.strictObject({
  agentId: idSchema.optional(),
  label: z.string().max(200).optional(),
  state: z.enum(['unlinked', 'connected', 'reconnecting']).optional(),
  phone: phone.optional(),
  flaky: z.strictObject({ everySeconds: z.number().positive(), downSeconds: z.number().positive() }).optional(),
  dialect: dialectListSchema.optional(),
});
type AgentInput = z.input<typeof agentInputSchema>;

const inboundInputSchema = z
  .strictObject({
    from: phone,
    type: z.enum(['text', 'image', 'document']).default('text'),
    text: z.string().max(65_536).optional(),
    caption: z.string().max(4096).optional(),
    filename: z.string().min(1).max(255).optional(),
    mimeType: z
      .string()
      .regex(/^[\w.+-]+\/[\w.+-]+$/, 'expected a MIME type like image/png')
      .optional(),
    id: idSchema.optional(),
    /** Sent from the agent's phone itself to `from` (the chat's other party): message.fromMe true. */
    fromMe: z.boolean().optional(),
  })
  .refine((m) => m.type !== 'text' || (m.text !== undefined && m.text !== ''), {
    message: 'a text message needs text',
    path: ['text'],
  });
type InboundInput = z.input<typeof inboundInputSchema>;

const scanSchema = z.strictObject({ phone, token: z.string().optional() });
const dropSchema = z.strictObject({ seconds: z.number().positive().max(86_400) });
const skewSchema = z.strictObject({ seconds: z.number().int().min(-86_400).max(86_400) });
const contactsSchema = z.strictObject({ phones: z.array(phone).max(100_000) });
const dialectSchema = z.strictObject({ dialect: dialectListSchema });

type ChatScriptInput = z.infer<typeof chatScriptSchema>;

interface AgentView {
  agentId: string;
  teamId: string;
  label: string;
  session: WireSession;
  /** Text the current pairing QR encodes (null unless pairing); pass as `token` to scan. */
  pairingToken: string | null;
  flaky: { everySeconds: number; downSeconds: number } | null;
  webhook: { mode: string; url: string; events: string[]; updatedAt: string; secretHint: string } | null;
  settings: WireChannelSettings;
  inboundCount: number;
  /** The agent's own dialect names (its team's apply under them). */
  dialect: string[];
}

interface EmulatorState {
  now: string;
  clockSkewSeconds: number;
  teams: Array<{
    id: string;
    name: string;
    keyHint: string;
    monthlyQuota: number;
    sendsPerMinute: number;
    sendsInWindow: number;
    sendsThisMonth: number;
    agentIds: string[];
    dialect: string[];
  }>;
  agents: AgentView[];
  webhooks: Array<{ agentId: string; mode: string; url: string; updatedAt: string }>;
  contacts: string[];
  sentMessages: SentMessage[];
  faults: Fault[];
  mediaRequests: number;
  mediaRequestsWithAuthorization: number;
  counters: ServiceCounters & {
    inbound: number;
    deliveries: number;
    deliveryAttempts: number;
    activeStreams: number;
    mediaRequests: number;
    mediaRequestsWithAuthorization: number;
  };
}

export interface EmulatorControl {
  createTeam(input?: TeamInput): { id: string; apiKey: string };
  createAgent(teamId: string, input?: AgentInput): { agentId: string };
  /** A phone scans the pairing QR (token optional: when given, must be the current QR). 409 if not pairing. */
  scan(agentId: string, input: { phone: string; token?: string }): Promise<WireSession>;
  drop(agentId: string, input: { seconds: number }): Promise<WireSession>;
  unlink(agentId: string): Promise<WireSession>;
  /** Extra: reconnecting → connected now. */
  recover(agentId: string): Promise<WireSession>;
  /** Extra: the session status as the service would report it. */
  session(agentId: string): Promise<WireSession>;
  inbound(agentId: string, input: InboundInput): { messageId: string; deliveryId: string | null };
  /**
   * Extra: at the agent's next webhook PUT, this inbound message is delivered (signed with the new
   * secret) before the PUT is answered; the answer waits for the delivery's first try to be answered,
   * at most REGISTER_REPLY_WAIT_MS. One-shot.
   */
  deliverOnRegister(agentId: string, input: InboundInput): { ok: true };
  /** Extra: the file of an inbound message is gone from the service: its media endpoint answers 410 MEDIA_EXPIRED. */
  expireMedia(agentId: string, messageId: string): { expired: true };
  /** Called by the service once an agent's webhook is set, before the PUT is answered. */
  registered(agentId: string): Promise<void>;
  setChatScript(agentId: string, script: ChatScriptInput): { ok: true };
  /** Extra: the agent's latest chat replies as sent (newest last). */
  chats(agentId: string): ChatRecord[];
  addFault(input: FaultInput): { id: string };
  clearFaults(): void;
  setClockSkew(input: { seconds: number }): { seconds: number };
  setContacts(input: { phones: string[] }): { count: number };
  /** Extra: the dialect names a team's (or an agent's) answers use; [] brings back the emulator's own. */
  setTeamDialect(teamId: string, input: { dialect: string | string[] }): { dialect: string[] };
  setAgentDialect(agentId: string, input: { dialect: string | string[] }): { dialect: string[] };
  /** Extra: every dialect name with what it changes. */
  dialects(): Array<{ name: string; describe: string }>;
  /** Extra: a scripted contact that answers what agents send it (replaces one with the same number). */
  setScriptedContact(input: unknown): ScriptedContact;
  removeScriptedContact(phone: string): { removed: boolean };
  scriptedContacts(): ScriptedContact[];
  /** A send went out (the service calls it): a scripted contact answers. */
  sent(m: SentMessage): void;
  deliveries(): DeliveryRecord[];
  /** Extra: resolves when no delivery is queued or in flight. */
  deliveriesIdle(): Promise<void>;
  state(): Promise<EmulatorState>;
  reset(): void;
}

export interface ControlDeps {
  world: World;
  sessions: Sessions;
  faults: Faults;
  blobs: BlobStore;
  deliveries: Deliveries;
  clock: Clock;
  counters: ServiceCounters & { inbound: number };
  streamsCount(): number;
  skew: { seconds: number };
  seed: EmulatorSeed | undefined;
  baseUrl(): string;
}

export function createControl(d: ControlDeps): EmulatorControl {
  const { world, sessions, clock } = d;
  // The contacts answer through inbound() (defined below; called only once a send went out).
  const scripted = new ScriptedContacts({
    clock,
    inbound: (agentId, input) => inbound(agentId, input),
    known: (digits) => void world.contacts.add(digits),
  });

  const agentOf = (agentId: string): Agent => {
    const agent = world.agents.get(agentId);
    if (!agent) throw notFound('AGENT_NOT_FOUND', `no agent "${agentId}"`);
    return agent;
  };

  const createTeam = (raw: TeamInput = {}): { id: string; apiKey: string } => {
    const input = parseWith(teamInputSchema, raw);
    const id = input.id ?? `team_${randomBytes(4).toString('hex')}`;
    const apiKey = input.apiKey ?? `ek_${randomBytes(24).toString('hex')}`;
    if (world.teams.has(id)) throw conflict('TEAM_EXISTS', `team "${id}" exists`);
    if (world.teamsByKey.has(apiKey)) throw conflict('KEY_EXISTS', 'that apiKey belongs to another team');
    const team: Team = {
      id,
      name: input.name ?? id,
      apiKey,
      monthlyQuota: input.monthlyQuota ?? DEFAULT_MONTHLY_QUOTA,
      sendsPerMinute: input.sendsPerMinute ?? DEFAULT_SENDS_PER_MINUTE,
      sendTimes: [],
      month: '',
      monthSends: 0,
      agentIds: new Set(),
      dialect: input.dialect ?? [],
    };
    world.teams.set(id, team);
    world.teamsByKey.set(apiKey, team);
    return { id, apiKey };
  };

  const createAgent = (teamId: string, raw: AgentInput = {}): { agentId: string } => {
    const input = parseWith(agentInputSchema, raw);
    const team = world.teams.get(teamId);
    if (!team) throw notFound('TEAM_NOT_FOUND', `no team "${teamId}"`);
    const agentId = input.agentId ?? `agent_${randomBytes(4).toString('hex')}`;
    if (world.agents.has(agentId)) throw conflict('AGENT_EXISTS', `agent "${agentId}" exists`);
    const agent: Agent = {
      id: agentId,
      teamId,
      label: input.label ?? agentId,
      link: { kind: 'unlinked' },
      flaky: input.flaky ?? null,
      webhook: null,
      settings: { groups: false, readReceipts: false, deliveryReceipts: false },
      chatScript: null,
      deliverOnRegister: null,
      conversations: new Map(),
      chats: [],
      inbound: new Map(),
      dialect: input.dialect ?? [],
    };
    const state = input.state ?? 'unlinked';
    if (state !== 'unlinked') {
      const digits = (input.phone ?? `1555${String(world.agents.size % 10_000_000).padStart(7, '0')}`).replace(
        /^\+/,
        '',
      );
      sessions.link(agent, digits);
      if (state === 'reconnecting' && agent.link.kind === 'linked') agent.link.downUntil = Infinity;
    }
    world.agents.set(agentId, agent);
    team.agentIds.add(agentId);
    return { agentId };
  };

  const applySeed = (seed: EmulatorSeed | undefined): void => {
    if (!seed) return;
    for (const t of seed.teams) {
      createTeam({
        id: t.id,
        name: t.name,
        apiKey: t.apiKey,
        monthlyQuota: t.monthlyQuota,
        sendsPerMinute: t.sendsPerMinute,
        dialect: t.dialect,
      });
      for (const a of t.agents)
        createAgent(t.id, {
          agentId: a.agentId,
          label: a.label,
          state: a.state,
          phone: a.phone,
          flaky: a.flaky,
          dialect: a.dialect,
        });
    }
    world.contacts = new Set((seed.contacts ?? []).map((p) => p.replace(/^\+/, '')));
    for (const c of seed.scriptedContacts ?? []) scripted.set(c);
  };

  const inbound = (agentId: string, raw: InboundInput): { messageId: string; deliveryId: string | null } => {
    const agent = agentOf(agentId);
    const input = parseWith(inboundInputSchema, raw);
    const state = sessions.state(agent);
    if (state === 'unlinked' || state === 'pairing') {
      throw new EmulatorError(409, 'CHANNEL_NOT_CONFIGURED', `agent ${agentId} has no linked number to receive on`);
    }
    const id = input.id ?? `wamid_${randomBytes(10).toString('hex')}`;
    const from = input.from.replace(/^\+/, '');
    const now = clock.now();
    let media = null;
    if (input.type !== 'text') {
      const mimeType = input.mimeType ?? (input.type === 'image' ? 'image/png' : 'application/pdf');
      const filename = input.filename ?? (input.type === 'image' ? `image-${id}.png` : `document-${id}.pdf`);
      media = { mimeType, filename, bytes: sampleBytes(input.type, mimeType, filename, id) };
    }
    agent.inbound.set(id, { id, from, type: input.type, receivedAt: now, media });
    d.counters.inbound++;
    // ASSUMPTION A-INBOUND: media at top level.
    const event: Record<string, unknown> = {
      event: 'message.received',
      from,
      message: {
        id,
        type: input.type,
        text: input.text ?? input.caption ?? '',
        fromMe: input.fromMe === true,
        ...(input.caption !== undefined ? { caption: input.caption } : {}),
      },
      ...(media
        ? {
            media: {
              url: `${d.baseUrl()}/api/v1/agents/${encodeURIComponent(agentId)}/whatsapp/media/${encodeURIComponent(id)}`,
              mimeType: media.mimeType,
              filename: media.filename,
              size: media.bytes.length,
            },
          }
        : {}),
      timestamp: new Date(now).toISOString(),
    };
    if (!agent.webhook) return { messageId: id, deliveryId: null };
    const record = d.deliveries.enqueue(agentId, agent.webhook.url, id, event);
    return { messageId: id, deliveryId: record.id };
  };

  const view = async (agent: Agent): Promise<AgentView> => ({
    agentId: agent.id,
    teamId: agent.teamId,
    label: agent.label,
    session: await sessions.status(agent),
    pairingToken: sessions.pairingText(agent),
    flaky: agent.flaky,
    webhook: agent.webhook
      ? {
          mode: agent.webhook.mode,
          url: agent.webhook.url,
          events: [...agent.webhook.events],
          updatedAt: agent.webhook.updatedAt,
          secretHint: keyHint(agent.webhook.secret),
        }
      : null,
    settings: { ...agent.settings },
    inboundCount: agent.inbound.size,
    dialect: [...agent.dialect],
  });

  const control: EmulatorControl = {
    createTeam,
    createAgent,
    async scan(agentId, raw) {
      const agent = agentOf(agentId);
      const input = parseWith(scanSchema, raw);
      sessions.scan(agent, input.phone.replace(/^\+/, ''), input.token);
      return sessions.status(agent);
    },
    async drop(agentId, raw) {
      const agent = agentOf(agentId);
      sessions.drop(agent, parseWith(dropSchema, raw).seconds);
      return sessions.status(agent);
    },
    async unlink(agentId) {
      const agent = agentOf(agentId);
      sessions.unlink(agent);
      return sessions.status(agent);
    },
    async recover(agentId) {
      const agent = agentOf(agentId);
      sessions.recover(agent);
      return sessions.status(agent);
    },
    session: (agentId) => sessions.status(agentOf(agentId)),
    inbound,
    deliverOnRegister(agentId, raw) {
      const agent = agentOf(agentId);
      parseWith(inboundInputSchema, raw);
      agent.deliverOnRegister = { ...raw };
      return { ok: true };
    },
    async registered(agentId) {
      const agent = d.world.agents.get(agentId);
      const armed = agent?.deliverOnRegister;
      if (!agent || !armed) return;
      agent.deliverOnRegister = null;
      const { deliveryId } = inbound(agentId, armed as InboundInput);
      const record = deliveryId === null ? undefined : d.deliveries.get(deliveryId);
      const until = clock.now() + REGISTER_REPLY_WAIT_MS;
      while (record && clock.now() < until) {
        const first = record.attempts[0];
        if (first && (first.status !== null || first.error !== null)) return;
        await sleep(clock, 10);
      }
    },
    setChatScript(agentId, raw) {
      const agent = agentOf(agentId);
      agent.chatScript = parseWith(chatScriptSchema, raw ?? {}) as ChatScript;
      return { ok: true };
    },
    chats: (agentId) => agentOf(agentId).chats.map((c) => ({ ...c })),
    addFault(raw) {
      return { id: d.faults.add(parseWith(faultInputSchema, raw)).id };
    },
    clearFaults: () => d.faults.clear(),
    setClockSkew(raw) {
      d.skew.seconds = parseWith(skewSchema, raw).seconds;
      return { seconds: d.skew.seconds };
    },
    setContacts(raw) {
      const input = parseWith(contactsSchema, raw);
      world.contacts = new Set(input.phones.map((p) => p.replace(/^\+/, '')));
      return { count: world.contacts.size };
    },
    setTeamDialect(teamId, raw) {
      const team = world.teams.get(teamId);
      if (!team) throw notFound('TEAM_NOT_FOUND', `no team "${teamId}"`);
      team.dialect = parseWith(dialectSchema, raw).dialect;
      return { dialect: [...team.dialect] };
    },
    setAgentDialect(agentId, raw) {
      const agent = agentOf(agentId);
      agent.dialect = parseWith(dialectSchema, raw).dialect;
      return { dialect: [...agent.dialect] };
    },
    dialects: () => Object.entries(DIALECTS).map(([name, d]) => ({ name, describe: d.describe })),
    setScriptedContact: (raw) => scripted.set(raw),
    removeScriptedContact: (p) => ({ removed: scripted.remove(p) }),
    scriptedContacts: () => scripted.list(),
    sent: (m) => scripted.onSent(m),
    expireMedia(agentId, messageId) {
      const record = agentOf(agentId).inbound.get(messageId);
      if (!record?.media) throw notFound('MEDIA_NOT_FOUND', `no inbound message "${messageId}" with media`);
      record.mediaExpired = true;
      return { expired: true };
    },
    deliveries: () => d.deliveries.list(),
    deliveriesIdle: () => d.deliveries.idle(),
    async state() {
      const now = clock.now();
      const agents = await Promise.all([...world.agents.values()].map(view));
      const media = d.blobs.counters;
      return {
        now: new Date(now).toISOString(),
        clockSkewSeconds: d.skew.seconds,
        teams: [...world.teams.values()].map((t) => ({
          id: t.id,
          name: t.name,
          keyHint: keyHint(t.apiKey),
          monthlyQuota: t.monthlyQuota,
          sendsPerMinute: t.sendsPerMinute,
          sendsInWindow: sendsInWindow(t, now),
          sendsThisMonth: monthSends(t, now),
          agentIds: [...t.agentIds],
          dialect: [...t.dialect],
        })),
        agents,
        webhooks: agents.flatMap((a) =>
          a.webhook
            ? [{ agentId: a.agentId, mode: a.webhook.mode, url: a.webhook.url, updatedAt: a.webhook.updatedAt }]
            : [],
        ),
        contacts: [...world.contacts],
        sentMessages: world.sent.map((m) => ({ ...m })),
        faults: d.faults.active(),
        mediaRequests: media.mediaRequests,
        mediaRequestsWithAuthorization: media.mediaRequestsWithAuthorization,
        counters: {
          ...d.counters,
          deliveries: d.deliveries.list().length,
          deliveryAttempts: d.deliveries.attemptsTotal,
          activeStreams: d.streamsCount(),
          mediaRequests: media.mediaRequests,
          mediaRequestsWithAuthorization: media.mediaRequestsWithAuthorization,
        },
      };
    },
    reset() {
      d.deliveries.cancelAll();
      d.faults.clear();
      d.blobs.clear();
      scripted.clear();
      world.clear();
      d.skew.seconds = 0;
      for (const k of Object.keys(d.counters) as Array<keyof typeof d.counters>) d.counters[k] = 0;
      d.deliveries.attemptsTotal = 0;
      applySeed(d.seed);
    },
  };
  applySeed(d.seed);
  return control;
}
