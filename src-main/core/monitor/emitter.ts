// A tiny typed event emitter: on() returns an unsubscribe; a throwing listener never breaks the others.
export type Unsubscribe = () => void;

export class Emitter<Events extends { [K in keyof Events]: unknown }> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  on<K extends keyof Events>(event: K, fn: (payload: Events[K]) => void): Unsubscribe {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    const entry = fn as (payload: never) => void;
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const fn of [...set]) {
      try {
        (fn as (p: Events[K]) => void)(payload);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
