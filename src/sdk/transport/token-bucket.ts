/**
 * The transport's token bucket: a fixed request rate with a burst, callers
 * served in order. A source API's `maxRequestsPerSecond` is paced by it, so
 * a third-party API (and its quota) is not read as fast as the network
 * allows. (The pushes to the service are paced by the sink's adaptive
 * limiter, which learns the rate from 429s; see docs/sink.md.)
 */
import type { Clock } from '../clock.js';

/** A fixed-rate token bucket (see the module comment). */
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

  /**
   * Wait until a request may go; callers are served in order.
   * @param signal - stops the wait (FERRY_ABORTED)
   */
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
