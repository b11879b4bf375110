// Checking a delivery's signature offline, as the receiver does: the same rule and the same clock tolerance.
export { verifyTunnelDelivery } from '../core/tunnel/verify';
export { DEFAULT_TOLERANCE_SEC, type HeaderBag } from '../core/signature';
