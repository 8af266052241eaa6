/**
 * Paces requests to the rate the {@link RateController} allows: a token
 * bucket refilled continuously (fractions of a token count), holding a few
 * tens of milliseconds' worth of requests so that a ceiling far above what
 * is reached costs nothing: while tokens are there, `acquire` takes one and
 * returns at once, without a timer. When the bucket is empty each acquirer
 * reserves the next token (the count goes below zero) and sleeps exactly
 * until its turn, so acquirers never queue behind one another's promises.
 * A request that has its token may still wait for the {@link Pacer}, which
 * spreads requests over the service's round trip instead of sending trains.
 */
import type { Clock } from '../sdk/clock.js';
import { Pacer } from './pacer.js';
import { RateController } from './rate-controller.js';
import type { RateDecision } from './rate-controller.js';

export interface AdaptiveRateOptions {
  /** The configured ceiling, requests per second. */
  maxPerSecond: number;
  /** Where the slow start begins. @default maxPerSecond (no slow start) */
  startPerSecond?: number;
  /** Lowest rate a run of 429s can push it to. @default 0.5 */
  minPerSecond?: number;
  /** Seconds of requests, at the current rate, that may go at once after an idle spell (at least one). @default 0.05 */
  burstSeconds?: number;
  /** Requests in flight at most (the pusher's slots): what the {@link Pacer} spreads over a round trip. @default 1 */
  concurrency?: number;
  /** A monotonic clock in milliseconds (`performance.now` in production). */
  clock: Clock;
  /** Window sizes of the controller (tests use small ones). */
  minWindowMs?: number;
  minWindowAnswers?: number;
}

const RESOLVED = Promise.resolve();

export class AdaptiveRateLimiter {
  private readonly controller: RateController;
  private readonly pacer: Pacer;
  private readonly burstSeconds: number;
  private readonly clock: Clock;
  private tokens: number;
  private refilledAt: number;
  /** New requests wait until then: the service refused everything and said when to come back. */
  private heldUntil = Number.NEGATIVE_INFINITY;
  /** Counts decreases: a turn reserved at an older rate is taken again at the new one. */
  private generation = 0;

  constructor(options: AdaptiveRateOptions) {
    this.clock = options.clock;
    this.burstSeconds = options.burstSeconds ?? 0.05;
    this.pacer = new Pacer(options.concurrency ?? 1);
    const now = this.clock.now();
    this.controller = new RateController(
      {
        ceiling: options.maxPerSecond,
        ...(options.startPerSecond === undefined ? {} : { initial: options.startPerSecond }),
        ...(options.minPerSecond === undefined ? {} : { floor: options.minPerSecond }),
        ...(options.minWindowMs === undefined ? {} : { minWindowMs: options.minWindowMs }),
        ...(options.minWindowAnswers === undefined ? {} : { minWindowAnswers: options.minWindowAnswers }),
      },
      now,
    );
    // A cold start sends one request, not a burst: the service's own bucket may be low after setup calls.
    // Nothing is earned before the first request (the pusher is made long before the first record reaches it).
    this.tokens = 1;
    this.refilledAt = Number.NaN;
  }

  /** Current allowed rate, requests per second. */
  get currentRate(): number {
    return this.controller.rate;
  }

  /** Take one token: at once when the bucket has one, else after a sleep until this request's turn. */
  acquire(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    this.refill(now);
    this.tokens -= 1;
    const held = this.heldUntil - now;
    if (this.tokens >= 0 && held <= 0) {
      const pace = this.pacer.delay(now);
      return pace > 0 ? this.clock.sleep(pace, signal) : RESOLVED;
    }
    this.controller.noteLimited();
    const turn = this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.controller.rate;
    const generation = this.generation;
    return this.clock.sleep(Math.max(turn, held), signal).then(() => (generation === this.generation ? undefined : this.acquire(signal)));
  }

  /** The source has been read to the end: stop probing past the service's limit (RateController.finish). */
  finish(): void {
    this.controller.finish();
  }

  /** The limiter's clock, to stamp when a request went out (for {@link onAnswer}). */
  now(): number {
    return this.clock.now();
  }

  /**
   * Feed one answer to the controller: `throttled` for a 429, with its
   * Retry-After, and when its request went out. Returns what the controller decided (for logs).
   */
  onAnswer(throttled: boolean, retryAfterMs?: number, sentAt?: number): RateDecision {
    const now = this.clock.now();
    // Tokens earned so far were earned at the old rate.
    this.refill(now);
    const decision = this.controller.onAnswer(throttled, now, sentAt);
    // A 429 often comes back faster than a write: only the service's real work shows how long a round trip takes.
    if (!throttled && sentAt !== undefined) this.pacer.onRoundTrip(sentAt, now);
    // Tokens saved up, and turns reserved, at the old rate would go out as a burst into a service that
    // just said it is overloaded: start from an empty bucket, and the waiters queue again at the new rate.
    if (decision.change === 'decrease' || decision.change === 'hold') {
      this.tokens = 0;
      this.generation++;
    }
    if (decision.change === 'hold' && retryAfterMs !== undefined) {
      this.heldUntil = Math.max(this.heldUntil, now + retryAfterMs);
      this.controller.restartWindow(this.heldUntil);
    }
    return decision;
  }

  private burst(): number {
    return Math.max(1, this.controller.rate * this.burstSeconds);
  }

  private refill(now: number): void {
    if (Number.isNaN(this.refilledAt)) this.refilledAt = now;
    const elapsed = now - this.refilledAt;
    if (elapsed <= 0) return;
    this.tokens = Math.min(this.burst(), this.tokens + (elapsed * this.controller.rate) / 1000);
    this.refilledAt = now;
  }
}
