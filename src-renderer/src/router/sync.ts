// Keeps the store's route and the address bar's hash in step: hashchange → store; store → hash
// (so app.navigate from the tray or a notification moves the window).
import type { AppStore } from '../store';

export interface HashWindow {
  location: { hash: string };
  addEventListener(type: 'hashchange', fn: () => void): void;
  removeEventListener(type: 'hashchange', fn: () => void): void;
}

export function syncRouteWithHash(store: AppStore, win: HashWindow): () => void {
  const fromHash = () => {
    const hash = win.location.hash || '#/';
    if (store.getState().route !== hash) store.getState().setRoute(hash);
  };
  fromHash();
  win.addEventListener('hashchange', fromHash);
  const unsubscribe = store.subscribe((s, prev) => {
    if (s.route !== prev.route && s.route !== (win.location.hash || '#/')) win.location.hash = s.route;
  });
  return () => {
    win.removeEventListener('hashchange', fromHash);
    unsubscribe();
  };
}
