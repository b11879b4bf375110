// One signature header at a time, as the service signs a delivery (signDelivery gives both).
import { LEGACY_HEADER, signDelivery, V1_HEADER } from '../../src-main/core/signature';

/** The legacy header's value: `sha256=<hex>` over the raw body (it carries no timestamp). */
export function legacySignature(secret: string, body: Uint8Array | string): string {
  return signDelivery(secret, body, 0)[LEGACY_HEADER]!;
}

/** The v1 header's value: `t=<unix>,v1=<hex>` over `<t>.<raw body>`. */
export function v1Signature(secret: string, body: Uint8Array | string, unixSeconds: number): string {
  return signDelivery(secret, body, unixSeconds)[V1_HEADER]!;
}
