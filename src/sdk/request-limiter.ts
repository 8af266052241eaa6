/**
 * At most `concurrency` calls in flight and, when a rate is set, calls
 * started at that rate through the transport's token bucket (the one pacing
 * rule of the SDK): the local ceiling a reader keeps on its own requests.
 * The API key's shared budget is the transport's (the client's request gate).
 */
import { monotonicClock } from './clock.js';
import { TokenBucket } from './transport/token-bucket.js';

export class RequestLimiter {
  readonly #concurrency: number;
  readonly #bucket: TokenBucket | undefined;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  /** @param concurrency calls in flight at once (≥ 1). @param perSecond calls started per second at most; unlimited when absent. */
  constructor(concurrency: number, perSecond?: number) {
    this.#concurrency = Math.max(1, Math.floor(concurrency));
    this.#bucket = perSecond && perSecond > 0 ? new TokenBucket(perSecond, monotonicClock) : undefined;
  }

  /** Calls in flight now. */
  get running(): number {
    return this.#running;
  }

  /** Run `call` when a place is free (and the rate allows); the place is given back when it settles. */
  async run<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    while (this.#running >= this.#concurrency) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#running += 1;
    try {
      await this.#bucket?.take(signal);
      return await call();
    } finally {
      this.#running -= 1;
      this.#waiting.shift()?.();
    }
  }
}
