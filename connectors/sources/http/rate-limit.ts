/**
 * A token bucket that paces requests to the *source* API. Connectors
 * normally leave throttling to the runner, but the runner only paces pushes
 * to the service: nothing else protects a third-party API (and its quota)
 * from being read as fast as the network allows.
 */
import type { Clock } from '../../../src/sdk/index.js';

export class TokenBucket {
  private tokens: number;
  private updated: number;
  private tail: Promise<void> = Promise.resolve();

  /**
   * @param ratePerSecond sustained requests per second
   * @param capacity burst size; one second's worth (at least 1) by default
   */
  constructor(
    private readonly ratePerSecond: number,
    private readonly clock: Clock,
    private readonly capacity: number = Math.max(1, Math.floor(ratePerSecond)),
  ) {
    this.tokens = this.capacity;
    this.updated = clock.now();
  }

  /** Wait until a request may go; callers are served in order. */
  take(signal?: AbortSignal): Promise<void> {
    const turn = this.tail.then(() => this.wait(signal));
    // A failed (aborted) wait must not block later callers.
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      this.tokens = Math.min(this.capacity, this.tokens + ((now - this.updated) / 1000) * this.ratePerSecond);
      this.updated = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.clock.sleep(Math.ceil(((1 - this.tokens) / this.ratePerSecond) * 1000), signal);
    }
  }
}
