// The window's own state: the hash route and the error of the last refresh.
import type { ErrorDTO } from '../../../src-shared/contract';
import type { Slice } from './env';
import { parseRoute } from '../router/routes';
import type { MessagesSlice } from './messages';

export interface UiSlice {
  /** The hash route, e.g. "#/agents/a1?team=t1". */
  route: string;
  /** The first error of the last refresh, shown until dismissed. */
  lastError: ErrorDTO | null;
  setRoute(route: string): void;
  /** A route the window is navigating to, not yet set: what it shows is asked for now (a thread's messages). */
  expectRoute(route: string): void;
  clearError(): void;
}

/** Only hash routes ("#/…") are accepted; anything else goes home. */
function normalizeRoute(route: string): string {
  return route.startsWith('#/') ? route : '#/';
}

export const uiSlice: Slice<UiSlice, Pick<MessagesSlice, 'openThread'>> = ({ set, get }) => ({
  route: '#/',
  lastError: null,
  setRoute: (route) => {
    const next = normalizeRoute(route);
    // A thread's messages are asked for with the route (before what follows the route's change), not once its
    // screen has rendered.
    get().expectRoute(next);
    set({ route: next });
  },
  expectRoute: (route) => {
    const r = parseRoute(normalizeRoute(route));
    if (r.name === 'messages' && r.teamId && r.agentId && r.contact)
      void get().openThread(r.teamId, r.agentId, r.contact);
  },
  clearError: () => set({ lastError: null }),
});
