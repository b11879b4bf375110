// Tasks one at a time: each starts when the one before it has settled (resolved or rejected), in the
// order they were given. A task's failure is its caller's alone: the ones after it run all the same.

export interface Serial {
  /** Runs `task` after every task given before it; settles as the task does. */
  <T>(task: () => T | PromiseLike<T>): Promise<T>;
  /** Settles once every task given so far has settled (never rejects). */
  idle(): Promise<void>;
}

export function serial(): Serial {
  let tail: Promise<unknown> = Promise.resolve();
  const run = <T>(task: () => T | PromiseLike<T>): Promise<T> => {
    const result = tail.then(task);
    tail = result.catch(() => undefined);
    return result;
  };
  const idle = (): Promise<void> => tail.then(() => undefined);
  return Object.assign(run, { idle });
}

export interface SerialByKey<K> {
  /** Runs `task` after every task given before it under the same key; keys do not wait for each other. */
  <T>(key: K, task: () => T | PromiseLike<T>): Promise<T>;
  /** Settles once every task given so far, under any key, has settled (never rejects). */
  idle(): Promise<void>;
  /** The keys with a task queued or running. */
  readonly size: number;
}

/** One serial line per key; a key that runs empty is forgotten. */
export function serialByKey<K>(): SerialByKey<K> {
  const tails = new Map<K, Promise<unknown>>();
  const run = <T>(key: K, task: () => T | PromiseLike<T>): Promise<T> => {
    const result = (tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
  const idle = async (): Promise<void> => {
    while (tails.size > 0) await Promise.all([...tails.values()]);
  };
  return Object.defineProperties(Object.assign(run, { idle }), {
    size: { get: () => tails.size },
  }) as SerialByKey<K>;
}
