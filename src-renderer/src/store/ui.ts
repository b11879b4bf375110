// The window's own state: the hash route and the error of the last refresh.
import type { ErrorDTO } from '../../../src-shared/contract';
import type { Slice } from './env';

export interface UiSlice {
  /** The hash route, e.g. "#/agents/a1?team=t1". */
  route: string;
  /** The first error of the last refresh, shown until dismissed. */
  lastError: ErrorDTO | null;
  setRoute(route: string): void;
  clearError(): void;
}

/** Only hash routes ("#/…") are accepted; anything else goes home. */
function normalizeRoute(route: string): string {
  return route.startsWith('#/') ? route : '#/';
}

export const uiSlice: Slice<UiSlice> = ({ set }) => ({
  route: '#/',
  lastError: null,
  setRoute: (route) => set({ route: normalizeRoute(route) }),
  clearError: () => set({ lastError: null }),
});
