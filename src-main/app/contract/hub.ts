// hub.status / hub.connect / hub.disconnect as a companion answers them on its own: its windows work with it,
// never through a hub. The desktop app and the browser host answer them themselves (app/hub-connection.ts).
import type { HubConnectionDTO } from '../../../src-shared/contract';
import { AppError } from '../errors';
import type { Implementations } from '../handlers';

export type HubRequests = Pick<Implementations, 'hub.status' | 'hub.connect' | 'hub.disconnect'>;

/** No hub: this machine's companion. */
export const NO_HUB: HubConnectionDTO = { url: null, member: null, role: null, publicUrl: null, problem: null };

export const noHubRequests: HubRequests = {
  'hub.status': async () => NO_HUB,
  'hub.connect': async () => {
    throw new AppError(
      'validation',
      'HUB_NOT_HERE',
      "Only the desktop app and the browser host connect their windows to a team's hub.",
    );
  },
  'hub.disconnect': async () => NO_HUB,
};
