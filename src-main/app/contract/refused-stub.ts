// tunnel.refused until the receiver keeps refused requests: none yet. (The tunnel's refused-request
// store answers this request; this file goes away with it.)
import type { Implementations } from '../handlers';

export const refusedStub: Pick<Implementations, 'tunnel.refused'> = {
  'tunnel.refused': async () => [],
};
