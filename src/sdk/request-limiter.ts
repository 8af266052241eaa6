/**
 * At most `concurrency` calls in flight and, when a rate is set, at most
 * `perSecond` started per second: the local ceiling a reader keeps on its
 * own requests (the shared budget of an API key is the transport's).
 */
export class RequestLimiter {
  readonly #concurrency: number;
  readonly #spacingMs: number;
  #running = 0;
  #nextStartMs = 0;
  readonly #waiting: (() => void)[] = [];

  /** @param concurrency calls in flight at once (≥ 1). @param perSecond calls started per second at most; unlimited when absent. */
  constructor(concurrency: number, perSecond?: number) {
    this.#concurrency = Math.max(1, Math.floor(concurrency));
    this.#spacingMs = perSecond && perSecond > 0 ? 1000 / perSecond : 0;
  }

  /** Calls in flight now. */
  get running(): number {
    return this.#running;
  }

  /** Run `call` when a place is free (and the rate allows); the place is given back when it settles. */
  async run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await call();
    } finally {
      this.#running -= 1;
      this.#waiting.shift()?.();
    }
  }

  async #acquire(signal: AbortSignal | undefined): Promise<void> {
    while (this.#running >= this.#concurrency) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#running += 1;
    if (this.#spacingMs === 0) return;
    const now = Date.now();
    const start = Math.max(now, this.#nextStartMs);
    this.#nextStartMs = start + this.#spacingMs;
    if (start > now) await new Promise((resolve) => setTimeout(resolve, start - now));
  }
}
