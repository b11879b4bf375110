// Maps and sets for a hot path where entries come and go all the time (one per delivery, forward or
// sync), built so that an entry that left keeps nothing alive.
// V8's Map and Set do not: a table that is rebuilt (it filled up with deleted entries, or grew) stays
// linked to its successor and keeps the entries it held. Once a full collection has moved a live
// table to the old generation, each successor is allocated there too, and every table left behind,
// though dead, is a root for the young generation's collections until the next full one. The
// short-lived entries it held (a delivery's promise, with its record, headers and body behind it)
// are then copied and promoted instead of dying young, and what is promoted holds on to later
// tables and entries the same way (docs/benchmarks.md: the tunnel promoted five times as much per
// delivery).
// Here a delete only clears the entry's value, and once most entries are cleared the live ones move
// to a new Map: a fresh, young one, not linked to the one it replaces. A few objects at a time (the
// syncs or requests running) are kept in an array instead.

/** Cleared entries tolerated beyond the live ones before the live ones move to a new Map. */
const SLACK = 64;

/** A map (values other than undefined). */
export class ChurnMap<K, V> {
  private map = new Map<K, V | undefined>();
  private live = 0;

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.get(key) !== undefined;
  }

  set(key: K, value: V): void {
    if (this.map.get(key) === undefined) this.live++;
    this.map.set(key, value);
  }

  delete(key: K): boolean {
    if (this.map.get(key) === undefined) return false;
    this.map.set(key, undefined);
    this.live--;
    if (this.map.size > 2 * this.live + SLACK) {
      const next = new Map<K, V | undefined>();
      for (const [k, v] of this.map) if (v !== undefined) next.set(k, v);
      this.map = next;
    }
    return true;
  }
}

/** A set of a few objects at a time (a delete looks through them): no table at all. */
export class ChurnSet<T extends object> {
  private items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  add(item: T): void {
    if (!this.items.includes(item)) this.items.push(item);
  }

  delete(item: T): boolean {
    const i = this.items.indexOf(item);
    if (i < 0) return false;
    const last = this.items.pop()!;
    if (i < this.items.length) this.items[i] = last;
    return true;
  }

  /** The members, as a copy (the set may change while they are gone through). */
  values(): T[] {
    return this.items.slice();
  }

  clear(): void {
    this.items = [];
  }
}
