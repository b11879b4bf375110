// The headers a delivery carries to the local app: its original content-type and both signature
// headers, plus the tunnel's own markers.
import { headerValue, LEGACY_HEADER, V1_HEADER } from '../signature';
import type { HeaderMap } from './types';

export const TUNNEL_HEADER = 'x-channel-companion-tunnel';
export const DELIVERY_HEADER = 'x-channel-companion-delivery';
export const REPLAY_HEADER = 'x-channel-companion-replay';
export const SIMULATED_HEADER = 'x-channel-companion-simulated';
export const RESIGNED_HEADER = 'x-channel-companion-resigned';
export const TUNNEL_VERSION = '0.1.0';
export const DEFAULT_TUNNEL_NAME = `channel-companion-tunnel/${TUNNEL_VERSION}`;

/** content-type and both signature headers as received (absent ones stay absent). */
export function originalHeaders(headers: HeaderMap): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['content-type', LEGACY_HEADER, V1_HEADER]) {
    const v = headerValue(headers, name);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

export function tunnelHeaders(name: string, deliveryId: string): Record<string, string> {
  return { [TUNNEL_HEADER]: name, [DELIVERY_HEADER]: deliveryId };
}
