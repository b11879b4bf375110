// A small single-consumer async queue: the producer pushes, the consumer iterates; buffered.
export class EventQueue<T> implements AsyncIterable<T> {
  private buffer: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private closed = false;
  private iterated = false;

  push(value: T): void {
    if (this.closed) return;
    const w = this.waiting;
    if (w) {
      this.waiting = undefined;
      w({ value, done: false });
    } else this.buffer.push(value);
  }

  close(): void {
    this.closed = true;
    const w = this.waiting;
    if (w && this.buffer.length === 0) {
      this.waiting = undefined;
      w({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterated) throw new Error('These turn events can be read once.');
    this.iterated = true;
    return {
      next: () => {
        if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift() as T, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.buffer = [];
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
