import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { pickBridge } from './bridge';
import { applyTheme, followSettingsTheme, readTheme } from './components/theme';
import { connectBrowserNotifications, notificationCtor } from './features/alerts/browserNotifications';
import { reportOpenThread } from './features/messages/openThread';
import { syncRouteWithHash } from './router/sync';
import { connectStore, createAppStore } from './store';
import { watchLink } from './store/liveness';
import { StoreContext } from './store/react';
import './styles.css';

applyTheme(readTheme(window.localStorage), document.documentElement);
// The bridge first: the web bridge takes its token from the hash before the router reads it.
const bridge = pickBridge();
const { api } = bridge;
const store = createAppStore(api);
syncRouteWithHash(store, window);
connectStore(store, api);
// The heartbeat: a banner, and agents shown as unknown, while the main side does not answer.
const link = watchLink(store, api, { host: bridge.host, signals: bridge.signals });
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') link.checkNow();
});
// The saved theme (app settings) wins over the localStorage copy once it loads.
followSettingsTheme(
  store,
  document.documentElement,
  window.localStorage,
  (theme) => void store.getState().updateSettings({ theme }),
);
// Read-only view of the whole store as plain data (actions dropped), for "copy diagnostics" style
// debugging and for the e2e check that no secret ever reaches the renderer.
Object.defineProperty(window, '__channelCompanionState', {
  value: () =>
    JSON.parse(
      JSON.stringify(store.getState(), (_k, v: unknown) =>
        v instanceof Map ? Object.fromEntries(v) : v instanceof Set ? [...v] : v,
      ),
    ) as unknown,
});
if (bridge.host === 'browser') {
  connectBrowserNotifications(store, api, {
    ctor: notificationCtor(),
    now: () => new Date(),
    focus: () => window.focus(),
  });
  // New-message notices: Electron's main process shows native notifications; a browser window
  // shows the same notices in the app.
  api.on('messages.notice', (n) => store.getState().applyMessageNotice(n));
}
// No new-message notification for the thread this window shows with focus.
reportOpenThread(store, api, {
  hasFocus: () => document.hasFocus(),
  visible: () => document.visibilityState === 'visible',
  onChange: (fn) => {
    window.addEventListener('focus', fn);
    window.addEventListener('blur', fn);
    document.addEventListener('visibilitychange', fn);
    return () => {
      window.removeEventListener('focus', fn);
      window.removeEventListener('blur', fn);
      document.removeEventListener('visibilitychange', fn);
    };
  },
});

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <StoreContext.Provider value={store}>
        <App />
      </StoreContext.Provider>
    </StrictMode>,
  );
}
