// The one typed event hub of the app: on() hears one event, onAny() hears every event tagged with
// its name (what the IPC and SSE forwarders need). Each returns its unsubscribe; a throwing listener
// never breaks the others.
export type Unsubscribe = () => void;

/** One event of a map as a tagged value: { name, payload }. */
export type Tagged<Events> = { [K in keyof Events]: { name: K; payload: Events[K] } }[keyof Events];

export class Emitter<Events extends { [K in keyof Events]: unknown }> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();
  private readonly anyListeners = new Set<(event: Tagged<Events>) => void>();

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

  onAny(fn: (event: Tagged<Events>) => void): Unsubscribe {
    this.anyListeners.add(fn);
    return () => {
      this.anyListeners.delete(fn);
    };
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.listeners.get(event);
    if (set) for (const fn of set.size === 1 ? set : [...set]) this.call(fn as (p: Events[K]) => void, payload);
    if (this.anyListeners.size === 0) return;
    const tagged = { name: event, payload } as Tagged<Events>;
    for (const fn of [...this.anyListeners]) this.call(fn, tagged);
  }

  /** Listeners of one event (onAny listeners not counted): lets an emitter skip work nobody hears. */
  listenerCount(event: keyof Events): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  /** Drops every listener. */
  clear(): void {
    this.listeners.clear();
    this.anyListeners.clear();
  }

  private call<T>(fn: (payload: T) => void, payload: T): void {
    try {
      fn(payload);
    } catch (err) {
      this.onListenerError(err);
    }
  }
}
