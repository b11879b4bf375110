// The contract's request handlers over AppServices. Each handler validates its raw args with the
// request's zod schema first (bad input changes nothing), runs, and answers a Result envelope:
// errors never throw across IPC/HTTP, they cross as ErrorDTO.
import type { ArgsOf, RequestName, Result, ResultOf, SessionDTO } from '../../src-shared/contract';
import { REQUEST_NAMES } from '../../src-shared/contract';
import type { SessionStatus } from '../core/api/types';
import type { RetryInfo } from '../core/api/service';
import { argSchemas } from './schemas';
import { serviceKind, toErrorDTO, zodToDTO } from './errors';
import type { AppServices } from './services';
import { unknownHealth, worstHealth } from './health';
import { snoozeUntil } from './snooze';

export type Handler<K extends RequestName> = (rawArgs: unknown) => Promise<Result<ResultOf<K>>>;
export type Handlers = { [K in RequestName]: Handler<K> };

type Impl = { [K in RequestName]: (args: ArgsOf<K>) => Promise<ResultOf<K>> };

function sessionDTO(teamId: string, agentId: string, s: SessionStatus): SessionDTO {
  const dto: SessionDTO = {
    teamId,
    agentId,
    connected: s.connected,
    linked: s.linked,
    state: s.state,
    needsScan: s.needsScan,
    phone: s.phone,
    qr: s.qr,
  };
  if (s.live !== undefined) dto.live = s.live;
  return dto;
}

function implementations(svc: AppServices): Impl {
  const { accounts, monitor, tunnel, chat, events } = svc;
  return {
    'teams.list': () => accounts.listTeams(),
    'teams.add': async (a) => {
      const team = await accounts.addTeam(a);
      events.publish('accounts.changed', { teams: await accounts.listTeams() });
      return team;
    },
    'teams.remove': async ({ teamId }) => {
      await accounts.removeTeam(teamId);
      events.publish('accounts.changed', { teams: await accounts.listTeams() });
      return null;
    },

    'agents.list': async ({ teamId }) => {
      const [agents, health] = [await accounts.listAgents(teamId), monitor.snapshot()];
      return agents.map((a) => ({
        ...a,
        health:
          health.find((h) => h.teamId === a.teamId && h.agentId === a.agentId) ??
          unknownHealth(a.teamId, a.agentId, svc.now()),
      }));
    },
    'agents.add': async ({ teamId, agentId, label }) => {
      const rec = await accounts.addAgent(teamId, label === undefined ? { agentId } : { agentId, label });
      events.publish('accounts.changed', { teams: await accounts.listTeams() });
      return { ...rec, health: unknownHealth(rec.teamId, rec.agentId, svc.now()) };
    },
    'agents.remove': async ({ teamId, agentId }) => {
      await accounts.removeAgent(teamId, agentId);
      events.publish('accounts.changed', { teams: await accounts.listTeams() });
      return null;
    },

    'health.snapshot': async () => {
      const agents = monitor.snapshot();
      return { at: svc.now(), worst: worstHealth(agents.map((a) => a.health)), agents };
    },

    'alerts.list': async () => monitor.incidents(),
    'alerts.status': async () => monitor.status(),
    'alerts.acknowledge': async ({ incidentId }) => {
      monitor.acknowledge(incidentId);
      return null;
    },
    'alerts.acknowledgeAll': async () => ({ count: monitor.acknowledgeAll() }),
    'alerts.snooze': async (spec) => {
      monitor.snooze(snoozeUntil(spec, svc.now()));
      return monitor.status();
    },
    'alerts.unsnooze': async () => {
      monitor.snooze(null);
      return monitor.status();
    },
    'alerts.setQuietHours': async (q) => {
      monitor.setQuietHours(q);
      return monitor.status();
    },
    'alerts.history': ({ teamId, agentId }) => monitor.history(teamId, agentId),

    'pairing.start': async ({ teamId, agentId }) => {
      const client = await svc.client(teamId);
      // ASSUMPTION A-SESSION-POST: the reply body is not relied on; read the session with GET.
      await client.startPairing(agentId);
      return sessionDTO(teamId, agentId, await client.getSession(agentId));
    },
    'pairing.session': async ({ teamId, agentId }) => {
      const client = await svc.client(teamId);
      return sessionDTO(teamId, agentId, await client.getSession(agentId));
    },

    'send.message': async ({ teamId, agentId, clientRef, ...req }) => {
      const client = await svc.client(teamId);
      const base = clientRef === undefined ? { teamId, agentId, to: req.to } : { teamId, agentId, to: req.to, clientRef };
      const r = await client.send(agentId, req, {
        // The queued id lets the console cancel this one send (send.cancel).
        onQueued: ({ id, position, waitMs }) => events.publish('send.progress', { ...base, phase: 'queued', queuedId: id, position, waitMs }),
        onRetry: (info: RetryInfo) =>
          events.publish('send.progress', {
            ...base,
            phase: 'retrying',
            attempt: info.attempt,
            delayMs: info.delayMs,
            error: { kind: serviceKind(info.error.kind), code: info.error.code, message: info.error.message },
          }),
      });
      return { status: r.status, messageId: r.messageId, to: r.to };
    },
    'send.budget': async ({ teamId }) => {
      const b = (await svc.client(teamId)).sendBudget();
      return { teamId, limit: b.limit, windowMs: b.windowMs, used: b.used, queued: b.queued.map((q) => ({ ...q })) };
    },
    'send.cancel': async ({ teamId, queuedId }) => ({ cancelled: (await svc.client(teamId)).cancelQueued(queuedId) }),

    'contacts.check': async ({ teamId, agentId, phone }) => {
      const c = await (await svc.client(teamId)).checkContact(agentId, phone);
      return { phone: c.phone, exists: c.exists, jid: c.jid };
    },
    'channel.updateSettings': async ({ teamId, agentId, patch }) => {
      const s = await (await svc.client(teamId)).updateSettings(agentId, patch);
      return { groups: s.groups, readReceipts: s.readReceipts, deliveryReceipts: s.deliveryReceipts };
    },
    'webhook.register': async ({ teamId, agentId, publicUrl }) => {
      const cfg = await (await svc.client(teamId)).setWebhook(agentId, publicUrl);
      // The signing secret stays in the main process: handed to the tunnel, never to the renderer.
      await tunnel.registerSecret(teamId, agentId, cfg.secret, cfg.url);
      return { mode: cfg.mode, url: cfg.url };
    },

    'tunnel.status': async () => tunnel.status(),
    'tunnel.deliveries': (filter) => tunnel.deliveries(filter),
    'tunnel.delivery': ({ id }) => tunnel.delivery(id),
    'tunnel.replay': ({ id, mode, body }) => tunnel.replay(id, mode, body),
    'tunnel.simulate': (input) => tunnel.simulate(input),
    'tunnel.export': ({ id, format }) => tunnel.export(id, format),
    'tunnel.media': ({ id }) => tunnel.media(id),

    'chat.startTurn': (input) => chat.startTurn(input),
    'chat.stopTurn': async ({ turnId }) => ({ stopped: chat.stopTurn(turnId) }),
    'chat.transcript': ({ teamId, agentId, userId }) => chat.transcript(teamId, agentId, userId),

    'settings.get': () => accounts.settings(),
    'settings.update': ({ patch }) => accounts.updateSettings(patch),

    'diagnostics.export': () => svc.diagnostics(),
    'demo.start': async () => {
      const demo = await svc.startDemo();
      events.publish('accounts.changed', { teams: await accounts.listTeams() });
      return demo;
    },
  };
}

export function createHandlers(services: AppServices): Handlers {
  const impl = implementations(services);
  const out = {} as Record<RequestName, (raw: unknown) => Promise<Result<unknown>>>;
  for (const name of REQUEST_NAMES) {
    const schema = argSchemas[name];
    const run = impl[name] as (args: unknown) => Promise<unknown>;
    out[name] = async (raw) => {
      const parsed = schema.safeParse(raw === undefined ? {} : raw);
      if (!parsed.success) return { ok: false, error: zodToDTO(parsed.error) };
      try {
        return { ok: true, value: await run(parsed.data) };
      } catch (e) {
        return { ok: false, error: toErrorDTO(e) };
      }
    };
  }
  return out as Handlers;
}
