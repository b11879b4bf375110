// Picks the bridge: the preload's window.api inside Electron, the HTTP bridge in a browser.
import type { Api } from '../../../src-shared/contract';
import { electronBridge } from './electron';
import { webBridge } from './web';

export function pickBridge(): Api {
  return (
    electronBridge() ??
    webBridge({
      location: window.location,
      history: window.history,
      sessionStorage: window.sessionStorage,
      fetch: window.fetch.bind(window),
      setTimeout: (fn, ms) => window.setTimeout(fn, ms),
    })
  );
}
