// webhook.history / webhook.restore / webhook.revealSecret over the companion's registration history
// (app/usecases/registration-status.ts words them as every shell does). The signing secret leaves
// the main process only on webhook.revealSecret, the window's explicit, confirmed request.
import type { RegistrationEntryDTO, RegistrationStatusDTO } from '../../../src-shared/contract';
import type { RegistrationRecord } from '../../core/tunnel';
import {
  describeRegistration,
  previousRegistration,
  restoredWords,
  takeoverWarning,
  type ReceiverHooks,
} from '../usecases/registration-status';
import { AppError } from '../errors';
import type { Implementations } from '../handlers';
import type { Scope } from './scope';

type WebhookRequests = Pick<Implementations, 'webhook.history' | 'webhook.restore' | 'webhook.revealSecret'>;

function registrationEntryDTO(r: RegistrationRecord): RegistrationEntryDTO {
  const dto: RegistrationEntryDTO = { url: r.url, at: r.at, source: r.source, target: r.target };
  if (r.registeredBy !== undefined) dto.registeredBy = r.registeredBy;
  return dto;
}

export function registrationStatusDTO(
  last: RegistrationRecord | null,
  hooks: ReceiverHooks,
  now: number,
): RegistrationStatusDTO {
  const s = describeRegistration(last, hooks, now);
  return {
    state: s.state,
    text: s.text,
    last: last ? registrationEntryDTO(last) : null,
    takeover: takeoverWarning(last, now),
  };
}

export function webhookRequests(
  { c, requireTeam }: Scope,
  onRegistered: (teamId: string, agentId: string) => void,
): WebhookRequests {
  return {
    'webhook.history': async ({ teamId, agentId }) => {
      const team = requireTeam(teamId);
      const { entries, problem } = await c.registrations.list(team.id, agentId);
      const prev = previousRegistration(entries);
      return {
        entries: entries.map(registrationEntryDTO),
        previous: prev ? registrationEntryDTO(prev) : null,
        problem,
      };
    },
    'webhook.restore': async ({ teamId, agentId, source }) => {
      const team = requireTeam(teamId);
      const r = await c.restoreWebhook(team.id, agentId, source);
      onRegistered(team.id, agentId);
      return { mode: r.mode, url: r.url, secretHint: r.secretHint, words: restoredWords(r.url) };
    },
    'webhook.revealSecret': async ({ teamId, agentId }) => {
      const team = requireTeam(teamId);
      const secret = await c.revealSigningSecret(team.id, agentId);
      if (secret === null)
        throw new AppError(
          'not-found',
          'NO_SIGNING_SECRET',
          `No signing secret is stored for ${agentId}: register its webhook first.`,
        );
      return { secret };
    },
  };
}
