// tunnel.expose / tunnel.unexpose / tunnel.setNgrokAuthtoken and the tunnel.exposure event over the
// companion's ExposureHost. The DTO carries the status, the registrations and only a hint of the
// ngrok authtoken; the command line the user gave is not echoed back (it may hold a token of its own).
import type { ExposureDTO } from '../../../src-shared/contract';
import type { ExposureView } from '../companion/exposure-host';
import type { Implementations } from '../handlers';
import type { Scope } from './scope';

type ExposeRequests = Pick<Implementations, 'tunnel.expose' | 'tunnel.unexpose' | 'tunnel.setNgrokAuthtoken'>;

export function exposureDTO(v: ExposureView): ExposureDTO {
  return {
    state: v.state,
    kind: v.kind,
    url: v.url,
    since: v.since,
    error: v.error ? { code: v.error.code, message: v.error.message, hint: v.error.hint } : null,
    registrations: v.registrations.map((r) => ({
      teamId: r.teamId,
      agentId: r.agentId,
      url: r.url,
      state: r.state,
      error: r.error,
    })),
    ngrokAuthtoken: { stored: v.ngrokAuthtoken.stored, hint: v.ngrokAuthtoken.hint },
  };
}

export function exposeRequests({ c, requireTeam }: Scope): ExposeRequests {
  return {
    'tunnel.expose': async (args) => {
      // Team labels are accepted like everywhere; the registrations name the team by id.
      const register = (args.register ?? []).map((a) => ({ teamId: requireTeam(a.teamId).id, agentId: a.agentId }));
      const choice =
        args.kind === 'command'
          ? { kind: 'command' as const, command: args.command }
          : { kind: 'ngrok' as const, ...(args.domain ? { domain: args.domain } : {}) };
      return exposureDTO(await c.exposure.expose({ ...choice, register }));
    },
    'tunnel.unexpose': async () => exposureDTO(await c.exposure.unexpose()),
    'tunnel.setNgrokAuthtoken': ({ authtoken }) => c.exposure.setNgrokAuthtoken(authtoken),
  };
}
