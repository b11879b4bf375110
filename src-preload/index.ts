// The preload (compiled to CommonJS for sandbox: true): exposes window.api with exactly one function
// per contract request plus on(event, cb) → unsubscribe. The IPC event object never reaches the page.
import { contextBridge, ipcRenderer } from 'electron';
import { EVENT_PREFIX, IPC_PREFIX, REQUEST_NAMES, isEventName } from '../src-shared/contract';

export function buildApi(ipc: Pick<typeof ipcRenderer, 'invoke' | 'on' | 'removeListener'>): Record<string, unknown> {
  const api: Record<string, unknown> = {};
  for (const name of REQUEST_NAMES) {
    api[name] = (args?: unknown) => ipc.invoke(IPC_PREFIX + name, args ?? {});
  }
  api['on'] = (event: string, cb: (payload: unknown) => void) => {
    if (typeof event !== 'string' || !isEventName(event)) throw new Error(`Unknown event: ${String(event)}`);
    if (typeof cb !== 'function') throw new Error('on(event, cb) needs a callback');
    const listener = (_e: unknown, payload: unknown) => cb(payload);
    ipc.on(EVENT_PREFIX + event, listener);
    return () => {
      ipc.removeListener(EVENT_PREFIX + event, listener);
    };
  };
  return Object.freeze(api);
}

contextBridge.exposeInMainWorld('api', buildApi(ipcRenderer));
