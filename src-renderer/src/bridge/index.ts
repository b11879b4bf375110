// Picks the bridge: the preload's window.api inside Electron, the HTTP bridge in a browser.
import type { Api } from '../../../src-shared/contract';
import { electronBridge } from './electron';
import { webBridge, type LinkSignals } from './web';

export interface Bridge {
  api: Api;
  /** Where the main side runs: Electron's main process, or the browser host (`serve`). */
  host: 'desktop' | 'browser';
  /** What the bridge itself learns about the connection (the web bridge's event stream); null in Electron. */
  signals: LinkSignals | null;
}

export function pickBridge(): Bridge {
  const inElectron = electronBridge();
  if (inElectron) return { api: inElectron, host: 'desktop', signals: null };
  const web = webBridge({
    location: window.location,
    history: window.history,
    sessionStorage: window.sessionStorage,
    fetch: window.fetch.bind(window),
    setTimeout: (fn, ms) => window.setTimeout(fn, ms),
    onHashChange: (fn) => window.addEventListener('hashchange', fn),
  });
  return { api: web.api, host: 'browser', signals: web.signals };
}
