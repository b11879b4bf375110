// Keeps the store's route and the address bar's hash in step: hashchange → store; store → hash
// (so app.navigate from the tray or a notification moves the window). Where the browser has the
// Navigation API, its navigate event (which comes as a hash navigation starts, a task before
// hashchange) lets the store ask for what the new route shows (a thread's messages) at once.
import type { AppStore } from '../store';

/** What the navigate event of the Navigation API carries here. */
interface NavigateEventLike {
  hashChange?: boolean;
  destination?: { url: string };
}

export interface HashWindow {
  location: { hash: string };
  addEventListener(type: 'hashchange', fn: () => void): void;
  removeEventListener(type: 'hashchange', fn: () => void): void;
  navigation?: {
    addEventListener(type: 'navigate', fn: (e: NavigateEventLike) => void): void;
    removeEventListener(type: 'navigate', fn: (e: NavigateEventLike) => void): void;
  };
}

export function syncRouteWithHash(store: AppStore, win: HashWindow): () => void {
  const fromHash = () => {
    const hash = win.location.hash || '#/';
    if (store.getState().route !== hash) store.getState().setRoute(hash);
  };
  const onNavigate = (e: NavigateEventLike) => {
    if (!e.hashChange || !e.destination) return;
    const hash = new URL(e.destination.url).hash || '#/';
    if (store.getState().route !== hash) store.getState().expectRoute(hash);
  };
  fromHash();
  win.addEventListener('hashchange', fromHash);
  win.navigation?.addEventListener('navigate', onNavigate);
  const unsubscribe = store.subscribe((s, prev) => {
    if (s.route !== prev.route && s.route !== (win.location.hash || '#/')) win.location.hash = s.route;
  });
  return () => {
    win.removeEventListener('hashchange', fromHash);
    win.navigation?.removeEventListener('navigate', onNavigate);
    unsubscribe();
  };
}
