/**
 * A token bucket whose rate adapts to the service (AIMD): halve on a 429,
 * creep back up by a fixed step after a run of successes, never above the
 * configured ceiling. A Retry-After hint pauses every acquirer until then.
 */
import type { Clock } from '../sdk/clock.js';

export interface AdaptiveRateOptions {
  /** The configured ceiling, requests per second. */
  maxPerSecond: number;
  /** Lowest rate a run of 429s can push it to. @default 0.5 */
  minPerSecond?: number;
  /** Tokens that can accumulate while idle; 1 means strict spacing. @default 1 */
  burst?: number;
  /** Multiplicative decrease on a 429. @default 0.5 */
  decreaseFactor?: number;
  /** Additive increase, requests per second. @default max(0.5, ceiling / 20) */
  increaseStep?: number;
  /** Successes in a row before each increase. @default 10 */
  successesPerIncrease?: number;
  /**
   * Least time between two changes of the rate. Climbing faster than this
   * overshoots the service's limit again at once, and each overshoot costs a
   * Retry-After pause for every request. @default 1000
   */
  increaseIntervalMs?: number;
  clock: Clock;
}

export class AdaptiveRateLimiter {
  private readonly ceiling: number;
  private readonly floor: number;
  private readonly burst: number;
  private readonly decreaseFactor: number;
  private readonly increaseStep: number;
  private readonly successesPerIncrease: number;
  private readonly increaseIntervalMs: number;
  private readonly clock: Clock;
  private changedAt = Number.NEGATIVE_INFINITY;

  private rate: number;
  private tokens: number;
  private refilledAt: number;
  private pausedUntil = 0;
  private successStreak = 0;
  /** A burst of 429s from requests sent together is one congestion signal, not many. */
  private lastCutAt = Number.NEGATIVE_INFINITY;
  /** Acquirers take turns so that each wait is computed from an up-to-date bucket. */
  private turn: Promise<void> = Promise.resolve();

  constructor(options: AdaptiveRateOptions) {
    this.ceiling = options.maxPerSecond;
    this.floor = Math.min(options.minPerSecond ?? 0.5, this.ceiling);
    this.burst = Math.max(1, options.burst ?? 1);
    this.decreaseFactor = options.decreaseFactor ?? 0.5;
    this.increaseStep = options.increaseStep ?? Math.max(0.5, this.ceiling / 20);
    this.successesPerIncrease = options.successesPerIncrease ?? 10;
    this.increaseIntervalMs = options.increaseIntervalMs ?? 1000;
    this.clock = options.clock;
    this.rate = this.ceiling;
    this.tokens = 1;
    this.refilledAt = this.clock.now();
  }

  /** Current allowed rate, requests per second. */
  get currentRate(): number {
    return this.rate;
  }

  /** Take one token, waiting as long as the bucket and any Retry-After pause require. */
  acquire(signal?: AbortSignal): Promise<void> {
    const mine = this.turn.then(() => this.take(signal));
    // The next acquirer waits for this one to finish, success or abort.
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  private async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) await this.clock.sleep(0, signal);
      const now = this.clock.now();
      this.refill(now);
      const pauseLeft = this.pausedUntil - now;
      if (pauseLeft > 0) {
        await this.clock.sleep(pauseLeft, signal);
        continue;
      }
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.clock.sleep(Math.ceil(((1 - this.tokens) * 1000) / this.rate), signal);
    }
  }

  private refill(now: number): void {
    const elapsed = Math.max(0, now - this.refilledAt);
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.rate) / 1000);
    this.refilledAt = now;
  }

  /** A request succeeded: after enough in a row, and not too soon after the last change, raise the rate by one step. */
  onSuccess(): void {
    if (this.rate >= this.ceiling) return;
    this.successStreak += 1;
    if (this.successStreak >= this.successesPerIncrease && this.clock.now() - this.changedAt >= this.increaseIntervalMs) {
      this.successStreak = 0;
      this.setRate(Math.min(this.ceiling, this.rate + this.increaseStep));
    }
  }

  /**
   * The service said 429. Cut the rate (at most once per current spacing
   * interval, so simultaneous refusals count once) and, with a hint, pause
   * everyone until the service's Retry-After has passed.
   */
  onThrottle(retryAfterMs: number | undefined): void {
    const now = this.clock.now();
    this.successStreak = 0;
    if (now - this.lastCutAt >= 1000 / this.rate) {
      this.lastCutAt = now;
      this.setRate(Math.max(this.floor, this.rate * this.decreaseFactor));
    }
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      this.pausedUntil = Math.max(this.pausedUntil, now + retryAfterMs);
    }
  }

  private setRate(rate: number): void {
    // Settle tokens earned at the old rate before switching.
    const now = this.clock.now();
    this.refill(now);
    this.rate = rate;
    this.changedAt = now;
  }
}
