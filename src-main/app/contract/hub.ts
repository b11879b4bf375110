// hub.status / hub.connect / hub.disconnect as a companion answers them on its own: its windows work with it,
// never through a hub. The desktop app and the browser host answer them themselves (app/hub-connection.ts).
import type { HubConnectionDTO } from '../../../src-shared/contract';
import { AppError } from '../errors';
import type { Implementations } from '../handlers';

export type HubRequests = Pick<Implementations, 'hub.status' | 'hub.connect' | 'hub.disconnect'>;

/** No hub: this machine's companion. */
export const NO_HUB: HubConnectionDTO = { url: null, member: null, role: null, publicUrl: null, problem: null };

export const noHubRequests: HubRequests & Pick<Implementations, 'hub.activity'> = {
  'hub.status': async () => NO_HUB,
  'hub.connect': async () => {
    throw new AppError(
      'validation',
      'HUB_NOT_HERE',
      "Only the desktop app and the browser host connect their windows to a team's hub.",
    );
  },
  'hub.disconnect': async () => NO_HUB,
  // A team's activity is the hub's (app/hub/attribution.ts answers it there); this companion keeps none.
  'hub.activity': async () => {
    throw new AppError(
      'validation',
      'NOT_A_HUB',
      "Team activity is kept by a team hub, and this is not one: connect to the team's hub (Settings → Team hub, or CHANNEL_HUB_URL and CHANNEL_HUB_TOKEN).",
    );
  },
};
