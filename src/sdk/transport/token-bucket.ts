/**
 * A fixed request rate with a burst, callers served in order: a source API's
 * `maxRequestsPerSecond`, so a third-party API (and its quota) is not read as
 * fast as the network allows. It is the request path's one token bucket
 * (control/rate-limiter.ts) held at a fixed rate: nothing tells it answers,
 * so it never moves from the rate it was given.
 */
import type { Clock } from '../clock.js';
import { AdaptiveRateLimiter } from './control/rate-limiter.js';

/** A fixed-rate token bucket (see the module comment). */
export class TokenBucket {
  private readonly bucket: AdaptiveRateLimiter;

  /**
   * @param ratePerSecond sustained requests per second
   * @param capacity burst size; one second's worth (at least 1) by default
   */
  constructor(ratePerSecond: number, clock: Clock, capacity: number = Math.max(1, Math.floor(ratePerSecond))) {
    this.bucket = new AdaptiveRateLimiter({ maxPerSecond: ratePerSecond, minPerSecond: ratePerSecond, burstSeconds: capacity / ratePerSecond, startFull: true, clock });
  }

  /**
   * Wait until a request may go; callers are served in order.
   * @param signal - stops the wait (FERRY_ABORTED)
   */
  take(signal?: AbortSignal): Promise<void> {
    return this.bucket.acquire(signal);
  }
}
