/**
 * @module A per-key mutex inside one process: work on one key runs one at a time, in arrival
 * order; work on other keys is not held up.
 */

export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `task` once every earlier task of `key` has settled; resolves or rejects with it. */
  async run<R>(key: string, task: () => R | Promise<R>): Promise<R> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release = (): void => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** Keys with work running or waiting. */
  get size(): number {
    return this.#tails.size;
  }
}
