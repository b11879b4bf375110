// The companion's part that points agents' webhooks: registering a URL (the receiver's hook, its public
// exposure's, or any other), restoring the previous one, revealing or checking the signing secret, and pointing
// the demo agents at the receiver. The secret the service answers is kept where the team keeps its secrets and
// handed to the receiver at once; the registration is written to the history of the data folder.
import type { ServiceClient } from '../../core/api/service';
import { TeamStoreError } from '../../core/teams';
import type { Logger } from '../../core/ports';
import { hookUrl, type RegistrationLog, type RegistrationTarget, type WebhookRegistration } from '../../core/tunnel';
import { registerAgentWebhook, registerDemoHooks, signingHint } from '../usecases/webhooks';
import { hasRedactedCredentials, previousRegistration, REGISTRATION_SOURCES } from '../usecases/registration-status';
import type { TeamSet } from './team-set';
import type { TunnelHost } from './tunnel-host';
import type { ExposureHost } from './exposure-host';
import type { PrefsStore } from './prefs';
import type { Companion } from './types';

interface WebhookDeps {
  set: TeamSet;
  tunnelHost: TunnelHost;
  exposure: () => ExposureHost;
  registrations: RegistrationLog;
  prefs: PrefsStore;
  /** The URL the agent's webhook was last registered to (WebhookRegistry.publicUrlOf). */
  publicUrlOf(teamId: string, agentId: string): string | null;
  clientFor(teamId: string): Promise<ServiceClient>;
  logger: Logger;
}

type WebhookPart = Pick<
  Companion,
  'registerWebhook' | 'restoreWebhook' | 'revealSigningSecret' | 'hasSigningSecret' | 'publicUrlOf'
> & {
  /** Points the demo agents' webhooks at the receiver (never over a URL this install did not set). */
  registerDemo(teamId: string, agentIds: string[], current: Map<string, string>): Promise<void>;
};

export function webhookPart(d: WebhookDeps): WebhookPart {
  const { set, tunnelHost, registrations, prefs, logger } = d;
  const teamOf = (teamIdOrLabel: string) => {
    const team = set.findTeam(teamIdOrLabel);
    if (!team) throw new TeamStoreError('NOT_FOUND', `No team "${teamIdOrLabel}".`);
    return team;
  };

  async function registerWebhook(
    teamIdOrLabel: string,
    agentId: string,
    publicUrl: string,
    source: string = REGISTRATION_SOURCES.appRegister,
  ): Promise<WebhookRegistration> {
    const team = teamOf(teamIdOrLabel);
    // What the URL is to this install now: the receiver's hook, its public exposure's, or someone else's.
    const listen = tunnelHost.url;
    const exposed = d.exposure().view();
    const target: RegistrationTarget =
      listen !== null && publicUrl === hookUrl(listen, agentId)
        ? 'receiver'
        : exposed.state === 'up' && exposed.url !== null && publicUrl === hookUrl(exposed.url, agentId)
          ? 'exposure'
          : 'other';
    const { registration: registered, historyProblem } = await registerAgentWebhook({
      client: await d.clientFor(team.id),
      agentId,
      url: publicUrl,
      inFlight: tunnelHost.registrations,
      history: { store: registrations, teamId: team.id, source, target },
      keepSecret: async (secret, { url }) => {
        await set.setSigningSecret(team.id, agentId, secret);
        await tunnelHost.secretsChanged(agentId);
        await prefs.update((p) => ({
          ...p,
          webhooks: [
            ...p.webhooks.filter((w) => !(w.teamId === team.id && w.agentId === agentId)),
            { teamId: team.id, agentId, publicUrl: url },
          ],
        }));
      },
    });
    if (historyProblem) logger.warn('companion: webhook registration history', { problem: historyProblem });
    await tunnelHost.start().catch(() => undefined);
    return registered;
  }

  return {
    registerWebhook,
    async restoreWebhook(teamIdOrLabel, agentId, source = REGISTRATION_SOURCES.appRestore) {
      const team = teamOf(teamIdOrLabel);
      const prev = previousRegistration((await registrations.list(team.id, agentId)).entries);
      if (!prev)
        throw new TeamStoreError('NOT_FOUND', `No previous webhook URL of ${agentId} in this install's history.`);
      if (hasRedactedCredentials(prev.url))
        throw new TeamStoreError(
          'INVALID',
          `The previous URL ${prev.url} carried credentials (a user and password, query values or a token in its path), which the history does not keep: register it by hand.`,
        );
      const registered = await registerWebhook(team.id, agentId, prev.url, source);
      const [secret] = await set.getSigningSecrets(team.id, agentId).catch(() => [] as string[]);
      return { ...registered, secretHint: secret ? signingHint(secret) : '' };
    },
    async revealSigningSecret(teamIdOrLabel, agentId) {
      const team = teamOf(teamIdOrLabel);
      return (await set.getSigningSecrets(team.id, agentId))[0] ?? null;
    },
    publicUrlOf: d.publicUrlOf,
    async hasSigningSecret(teamId, agentId) {
      return (await set.getSigningSecrets(teamId, agentId).catch(() => [])).length > 0;
    },

    // The demo team's agents have no receiver but this one: their webhooks are pointed at it when the
    // demo starts, so the demo inbox fills without a step on the Tunnel screen (never over a URL this
    // install did not set), again at every start (the emulator keeps no webhook across runs). The public
    // URLs kept for teams that no longer exist (a demo team removed) are dropped first.
    async registerDemo(teamId, agentIds, current) {
      const known = new Set(set.listTeams().map((t) => t.id));
      if (prefs.get().webhooks.some((w) => !known.has(w.teamId)))
        await prefs
          .update((p) => ({ ...p, webhooks: p.webhooks.filter((w) => known.has(w.teamId)) }))
          .catch(() => undefined);
      let receiver: string;
      try {
        receiver = (await tunnelHost.start()).url;
      } catch (err) {
        logger.warn("demo: the receiver is not listening, so the demo agents' webhooks were not registered", {
          error: err instanceof Error ? err.message : String(err),
        });
        return;
      }
      const outcomes = await registerDemoHooks({
        receiver,
        agentIds,
        current,
        ours: async (agentId) => (await registrations.list(teamId, agentId)).entries.map((e) => e.url),
        register: (agentId, url) => registerWebhook(teamId, agentId, url, REGISTRATION_SOURCES.demo),
      });
      for (const o of outcomes) {
        if (o.state === 'foreign')
          logger.warn("demo: the agent's webhook points at a URL this install did not set; left as it is", {
            agentId: o.agentId,
            url: o.url,
          });
        else if (o.state === 'failed')
          logger.warn("demo: the agent's webhook could not be registered", { agentId: o.agentId, error: o.error });
      }
    },
  };
}
