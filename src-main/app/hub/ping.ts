// app.ping as a hub answers it: the companion's heartbeat plus who asks (the member and their role) and the
// hub's public URL, so a client can say "connected to the hub as alice (admin)" and build hook URLs under it
// (`webhook set --register-url self`).
import type { Handlers } from '../handlers';
import { actingMember } from './acting';

export function hubPing(base: Handlers['app.ping'], publicUrl: string | null): Handlers['app.ping'] {
  return async (raw) => {
    const r = await base(raw);
    const member = actingMember();
    if (!r.ok || !member) return r;
    return { ok: true, value: { ...r.value, hub: { member: member.name, role: member.role, publicUrl } } };
  };
}
