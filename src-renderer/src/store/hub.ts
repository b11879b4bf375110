// The team's hub this window works through (Settings → Team hub): connect with its URL and a member token,
// disconnect back to this machine's companion. The main side keeps the token (the OS keychain); the window
// sends it once, when connecting, and never reads it back. After a switch every screen reads afresh.
import type { Api, ErrorDTO, HubActivityDTO, HubConnectionDTO, Result } from '../../../src-shared/contract';
import type { Slice } from './env';

export interface HubSlice {
  /** null until loaded. */
  hub: HubConnectionDTO | null;
  loadHub(): Promise<ErrorDTO | null>;
  connectHub(url: string, token: string): Promise<ErrorDTO | null>;
  disconnectHub(): Promise<ErrorDTO | null>;
  /** A page of the hub's team activity, newest first (`before`: the previous page's `next`); not kept in the store. */
  loadHubActivity(before?: number): Promise<Result<HubActivityDTO>>;
}

export const hubSlice: Slice<HubSlice, { reloadAll(): Promise<ErrorDTO | null> }> = ({ set, get, api }) => ({
  hub: null,
  loadHub: async () => {
    const r = await api['hub.status']();
    if (!r.ok) return r.error;
    set({ hub: r.value });
    return null;
  },
  connectHub: async (url, token) => {
    const r = await api['hub.connect']({ url, token });
    if (!r.ok) return r.error;
    set({ hub: r.value });
    void get().reloadAll();
    return null;
  },
  disconnectHub: async () => {
    const r = await api['hub.disconnect']();
    if (!r.ok) return r.error;
    set({ hub: r.value });
    void get().reloadAll();
    return null;
  },
  loadHubActivity: (before) => api['hub.activity'](before !== undefined ? { before } : {}),
});

/**
 * The bridge, watched for the hub's refusals by role: the member's role changed while connected, so the
 * connection (and with it what the screens allow, useAllowed) is read again.
 */
export function reloadingHubOnRefusal(api: Api, reload: () => void): Api {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop === 'on' || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const r = (await (value as (...a: unknown[]) => Promise<Result<unknown>>).apply(
          target,
          args,
        )) as Result<unknown>;
        if (!r.ok && r.error.code === 'ROLE_FORBIDDEN') reload();
        return r;
      };
    },
  });
}
