// zod schemas for every request's args: validated at the edge (IPC, HTTP) before anything runs.
// Objects are strict: an unknown key is an error, so a typo never silently does nothing.
import { z } from 'zod';
import { hasUnsafeCharacters } from '../../src-shared/terminal-text';
import { VERDICTS, type ArgsOf, type RequestName } from '../../src-shared/contract';
import type { FieldNames } from '../core/input-words';
import { labelSchema as label } from '../core/teams/schema';
import { baseUrlSchema, httpUrlSchema as httpUrl, storedUrlSchema as storedUrl } from '../core/url';
import { ngrokAuthtokenSchema } from '../core/expose';

const id = z.string().trim().min(1).max(200);
/** E.164 (with or without +), or a full JID; the client normalises and rejects garbage again. */
const recipient = z.string().trim().min(3).max(120);
const text = z.string().max(65_536);
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a 24-hour time HH:MM');
const empty = z.strictObject({});
const teamAgent = z.strictObject({ teamId: id, agentId: id });
const agentInput = z.strictObject({ agentId: id, label: label.optional() });
/** Labels as typed; the team store normalises them and names one that breaks the rule. */
const labels = z.array(z.string().max(200)).max(100);

/** The same start and end would be an empty window: refused, so a saved window always means something. */
const quietHours = z.strictObject({ enabled: z.boolean(), start: hhmm, end: hhmm }).refine((q) => q.start !== q.end, {
  path: ['end'],
  message: 'quiet hours need an end time different from the start time',
});

// Ranges as in the team store settings schema (src-main/core/teams/schema.ts).
const alertRules = z.strictObject({
  reconnectGraceSec: z.number().int().min(0).max(3600),
  repeatDropGraceSec: z.number().int().min(0).max(3600),
  realertMinutes: z.number().int().min(0).max(1440),
  flapCount: z.number().int().min(2).max(100),
  flapWindowMinutes: z.number().int().min(1).max(1440),
});

// installId is read-only: not accepted here, so a patch that carries it is a validation error.
const settingsPatch = z
  .strictObject({
    startAtLogin: z.boolean(),
    notifications: z.boolean(),
    pollIntervalSec: z.number().int().min(5).max(3600),
    escalateAfterMin: z.number().int().min(0).max(1440),
    tunnel: z.strictObject({
      port: z.number().int().min(0).max(65535),
      forwardTo: storedUrl.nullable(),
      allowLegacySignature: z.boolean().optional(),
    }),
    alertRules,
    alertWebhookUrl: storedUrl.nullable(),
    alertmanagerUrl: storedUrl.nullable(),
    metricsPort: z.number().int().min(0).max(65535).nullable(),
    theme: z.enum(['system', 'light', 'dark']),
    messageNotifications: z
      .strictObject({ enabled: z.boolean(), showText: z.boolean(), quietHours })
      .partial()
      .refine((m) => Object.keys(m).length > 0, 'name at least one of enabled, showText, quietHours'),
  })
  .partial();

const sendFields = z.strictObject({
  teamId: id,
  agentId: id,
  to: recipient,
  text: text.optional(),
  imageUrl: httpUrl.optional(),
  documentUrl: httpUrl.optional(),
  documentFilename: z.string().trim().min(1).max(255).optional(),
  clientRef: z.string().max(100).optional(),
});
const sendChecks = (
  v: {
    text?: string | undefined;
    imageUrl?: string | undefined;
    documentUrl?: string | undefined;
    documentFilename?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void => {
  if (v.imageUrl && v.documentUrl) {
    ctx.addIssue({ code: 'custom', path: ['documentUrl'], message: 'send either an image or a document, not both' });
  }
  if (!v.text && !v.imageUrl && !v.documentUrl) {
    ctx.addIssue({ code: 'custom', path: ['text'], message: 'a message needs text, an image or a document' });
  }
  if (v.documentFilename && !v.documentUrl) {
    ctx.addIssue({ code: 'custom', path: ['documentFilename'], message: 'needs a document URL' });
  }
};
const sendArgs = sendFields.superRefine(sendChecks);

type Schemas = { [K in RequestName]: z.ZodType<ArgsOf<K>> };

/** Field names that differ by request from core/input-words.ts's (a team's label is its name). */
export const argFieldNames: Partial<Record<RequestName, FieldNames>> = {
  'teams.add': { label: 'Team name', 'agents.label': 'Agent label' },
  'teams.update': { label: 'Team name' },
};

export const argSchemas: Schemas = {
  'teams.list': empty,
  'teams.add': z.strictObject({
    label,
    baseUrl: baseUrlSchema,
    apiKey: z.string().trim().min(8, 'the API key looks too short').max(512),
    agents: z.array(agentInput).max(100),
    allowInsecureHttp: z.boolean().optional(),
  }),
  'teams.remove': z.strictObject({ teamId: id }),
  'teams.update': z.strictObject({
    teamId: id,
    label: label.optional(),
    baseUrl: baseUrlSchema.optional(),
    apiKey: z.string().trim().min(8, 'the API key looks too short').max(512).optional(),
    allowInsecureHttp: z.boolean().optional(),
  }),

  'agents.list': z.strictObject({ teamId: id.optional() }),
  'agents.add': z.strictObject({ teamId: id, agentId: id, label: label.optional(), labels: labels.optional() }),
  'agents.remove': teamAgent,
  'agents.watchClosely': z.strictObject({ teamId: id, agentId: id, on: z.boolean() }),
  'agents.setLabels': z.strictObject({
    teamId: id,
    agentId: id,
    labels: labels.optional(),
    add: labels.optional(),
    remove: labels.optional(),
  }),

  'health.snapshot': empty,
  'health.history': teamAgent,
  'health.availability': teamAgent,

  'alerts.list': empty,
  'alerts.history': z.strictObject({
    teamId: id.optional(),
    agentId: id.optional(),
    kind: id.optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  }),
  'alerts.status': empty,
  'alerts.acknowledge': z.strictObject({ incidentId: id }),
  'alerts.acknowledgeAll': empty,
  'alerts.snooze': z.union([
    z.strictObject({
      minutes: z
        .number()
        .int()
        .min(1)
        .max(7 * 24 * 60),
    }),
    z.strictObject({ until: z.literal('tomorrow') }),
  ]),
  'alerts.unsnooze': empty,
  'alerts.setQuietHours': quietHours,

  'pairing.start': teamAgent,
  'pairing.session': teamAgent,

  'send.message': sendFields.extend({ from: z.literal('cli').optional() }).superRefine(sendChecks),
  'send.budget': z.strictObject({ teamId: id }),
  'send.cancel': z.strictObject({ teamId: id, queuedId: id }),
  'send.stop': z.strictObject({ clientRef: id }),

  'contacts.check': z.strictObject({ teamId: id, agentId: id, phone: recipient }),
  'channel.updateSettings': z.strictObject({
    teamId: id,
    agentId: id,
    patch: z
      .strictObject({ groups: z.boolean(), readReceipts: z.boolean(), deliveryReceipts: z.boolean() })
      .partial()
      .refine((p) => Object.keys(p).length > 0, 'change at least one setting'),
  }),
  'webhook.register': z.strictObject({
    teamId: id,
    agentId: id,
    publicUrl: storedUrl,
    source: z.literal('webhook set').optional(),
  }),
  'webhook.history': z.strictObject({ teamId: id, agentId: id }),
  'webhook.restore': z.strictObject({ teamId: id, agentId: id, source: z.literal('webhook restore').optional() }),
  'webhook.revealSecret': z.strictObject({ teamId: id, agentId: id }),

  'tunnel.status': empty,
  'tunnel.start': empty,
  'tunnel.deliveries': z.strictObject({
    agentId: id.optional(),
    verdict: z.enum(VERDICTS).optional(),
    event: z.string().max(100).optional(),
    from: z.string().max(120).optional(),
    text: z.string().max(500).optional(),
    since: z.number().int().nonnegative().optional(),
    until: z.number().int().nonnegative().optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  }),
  'tunnel.delivery': z.strictObject({ id }),
  'tunnel.replay': z
    .strictObject({
      id,
      mode: z.enum(['as-received', 're-signed']),
      body: z.string().max(1_000_000).optional(),
      url: httpUrl.optional(),
    })
    .refine((v) => v.body === undefined || v.mode === 're-signed', {
      path: ['body'],
      message: 'an edited body can only be replayed re-signed',
    }),
  'tunnel.simulate': z.strictObject({
    teamId: id.optional(),
    agentId: id,
    type: z.enum(['text', 'image', 'document']),
    from: z
      .string()
      .trim()
      .regex(/^\+?\d{6,15}$/, 'must be a phone number in international form, digits only (e.g. +15550102000)'),
    text: text.optional(),
    caption: text.optional(),
    mediaUrl: httpUrl.optional(),
    filename: z.string().trim().min(1).max(255).optional(),
  }),
  'tunnel.export': z.strictObject({ id, format: z.enum(['curl', 'fixture']), url: httpUrl.optional() }),
  'tunnel.media': z.strictObject({ id }),
  'tunnel.retryNow': z.strictObject({ agentId: z.string().min(1).max(200) }),
  'tunnel.refused': z.strictObject({
    limit: z.number().int().min(1).max(1000).optional(),
    text: z.string().max(500).optional(),
  }),
  'tunnel.expose': z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('ngrok'),
      domain: z
        .string()
        .regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a domain name')
        .optional(),
      register: z.array(teamAgent).max(200).optional(),
    }),
    z.strictObject({
      kind: z.literal('command'),
      command: z
        .string()
        .trim()
        .min(1, 'give the command that runs your tunnel program')
        .max(4000)
        .includes('{port}', { message: "put {port} where the receiver's port goes" }),
      register: z.array(teamAgent).max(200).optional(),
    }),
  ]),
  'tunnel.unexpose': empty,
  'tunnel.setNgrokAuthtoken': z.strictObject({ authtoken: ngrokAuthtokenSchema }),

  'chat.startTurn': z.strictObject({
    teamId: id,
    agentId: id,
    userId: id,
    message: z.string().trim().min(1).max(32_000),
  }),
  'chat.stopTurn': z.strictObject({ turnId: id }),
  'chat.transcript': z.strictObject({ teamId: id, agentId: id, userId: id }),
  'chat.conversations': z.strictObject({ teamId: id, agentId: id, text: z.string().max(200).optional() }),
  'chat.deleteConversation': z.strictObject({ teamId: id, agentId: id, userId: id }),
  'chat.frames': z.strictObject({ turnId: id }),

  'settings.get': empty,
  'settings.update': z.strictObject({ patch: settingsPatch }),

  'diagnostics.export': empty,
  'demo.start': empty,

  'messages.contacts': z.strictObject({
    teamId: id.optional(),
    agentId: id.optional(),
    search: z.string().max(200).optional(),
    limit: z.number().int().min(1).max(100_000).optional(),
  }),
  'messages.thread': z.strictObject({
    teamId: id,
    agentId: id,
    phone: recipient,
    before: z.number().int().nonnegative().optional(),
    beforeSeq: z.number().int().positive().optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  }),
  'messages.markRead': z.strictObject({
    teamId: id,
    agentId: id,
    phone: recipient,
    upToSeq: z.number().int().positive().optional(),
  }),
  'messages.search': z.strictObject({
    query: z.string().trim().min(1).max(200),
    teamId: id.optional(),
    agentId: id.optional(),
    limit: z.number().int().min(1).max(500).optional(),
  }),
  'messages.export': z.strictObject({
    teamId: id,
    agentId: id,
    phone: recipient,
    format: z.enum(['jsonl', 'csv', 'text']),
  }),
  'messages.deleteContact': z.strictObject({ phone: recipient }),
  'messages.setName': z.strictObject({
    phone: recipient,
    name: z
      .string()
      .trim()
      .max(200)
      .refine((s) => !hasUnsafeCharacters(s), 'must not contain control or text-direction characters'),
  }),
  'messages.deleteConversation': z.strictObject({ teamId: id, agentId: id, phone: recipient }),
  'messages.deleteAgent': teamAgent,
  'messages.setRetention': z.strictObject({ days: z.number().int().min(1).max(3650) }),
  'messages.send': sendArgs,
  'messages.media': z.strictObject({ teamId: id, agentId: id, messageKey: id }),
  'messages.saveMedia': z.strictObject({ teamId: id, agentId: id, messageKey: id }),
  'messages.sent': z.strictObject({ teamId: id, agentId: id, limit: z.number().int().min(1).max(1000).optional() }),
  'messages.unread': empty,
  'messages.focus': z
    .strictObject({ teamId: id.optional(), agentId: id.optional(), phone: recipient.optional() })
    .refine((v) => [v.teamId, v.agentId, v.phone].every((x) => x === undefined) || (v.agentId && v.phone), {
      message: 'name a thread (teamId, agentId and phone), or nothing for none',
    }),
  'messages.mute': z.strictObject({ teamId: id, agentId: id, muted: z.boolean() }),

  'app.ping': empty,
  'hub.status': empty,
  'hub.activity': z.strictObject({
    limit: z.number().int().min(1).max(500).optional(),
    before: z.number().int().min(1).optional(),
  }),
  'hub.connect': z.strictObject({
    url: z.url({ protocol: /^https?$/, error: "expected the hub's http(s) URL" }).max(2000),
    token: z.string().trim().min(1, 'paste your member token').max(256),
  }),
  'hub.disconnect': empty,
};
