// A tiny typed event hub: the lead's facade publishes core happenings here; IPC and the browser host
// subscribe and push them to their windows / SSE streams.
import type { AnyEvent } from '../../src-shared/contract';
import type { EventBusPort } from './services';

export type EventHub = EventBusPort;

export function createEventHub(onListenerError?: (e: unknown) => void): EventHub {
  const listeners = new Set<(event: AnyEvent) => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return (): void => {
        listeners.delete(listener);
      };
    },
    publish(name, payload) {
      const event = { name, payload } as AnyEvent;
      for (const l of [...listeners]) {
        try {
          l(event);
        } catch (e) {
          onListenerError?.(e);
        }
      }
    },
  };
}
