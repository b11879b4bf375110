// The webhook receiver a command runs in its own process (loaded on demand: it is the heaviest part of a
// command): the tunnel, its errors, its private data folder, and the records it keeps.
export { Tunnel, TunnelError, ensurePrivateDir } from '../core/tunnel';
export type { ForwardAttempt, RefusedRequest, StoredDelivery } from '../core/tunnel';
