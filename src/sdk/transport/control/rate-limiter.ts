/**
 * Paces requests to the rate the {@link RateController} allows: a token
 * bucket refilled continuously (fractions of a token count), holding a few
 * tens of milliseconds' worth of requests so that a ceiling far above what
 * is reached costs nothing: while tokens are there, `acquire` takes one and
 * returns at once, without a timer. When the bucket is empty acquirers wait
 * in line, and one timer hands out tokens as they are earned. A change of
 * rate takes effect for those already waiting: a slow start that grows with
 * every answer speeds up the line at once, where turns reserved at the first,
 * modest rate would hold the first requests to it for 100 ms (sixteen slots
 * at 160 requests/s), however fast the service answers.
 * A request that has its token may still wait for the {@link Pacer}, which
 * spreads requests over the service's round trip instead of sending trains.
 */
import { onAbort } from '../../abort-listeners.js';
import { abortedError } from '../../http-retry.js';
import type { Clock } from '../../clock.js';
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
  /** Start with a full burst of tokens (a fixed-rate bucket), not one. @default false */
  startFull?: boolean;
  /** Told when a 429 that halted the sender changed the rate (RateController.resumeAfterHalt). Must not throw. */
  onHalt?: (decision: Exclude<RateDecision, { change: 'none' }>) => void;
}

const RESOLVED = Promise.resolve();

interface Waiter {
  resolve: () => void;
  /** Stops listening to the signal: called when the waiter is served. */
  stopListening: (() => void) | undefined;
  /** Aborted while in line: skipped when its turn comes. */
  gone: boolean;
}

export class AdaptiveRateLimiter {
  private readonly controller: RateController;
  private readonly pacer: Pacer;
  private readonly burstSeconds: number;
  private readonly clock: Clock;
  private readonly onHalt: AdaptiveRateOptions['onHalt'];
  private tokens: number;
  private refilledAt: number;
  /** New requests wait until then: the service refused everything and said when to come back. */
  private heldUntil = Number.NEGATIVE_INFINITY;
  /** Acquirers waiting for a token, in arrival order (from `head` on). */
  private readonly line: Waiter[] = [];
  private head = 0;
  /** Waiters in line not yet served nor aborted. */
  private waiting = 0;
  /** Requests that waited for a token while the rate stood at the configured ceiling: the ceiling, not the service, set their pace. */
  private heldByCeilingCount = 0;
  /** Decreases and holds so far: a request still waiting for the {@link Pacer} when one comes takes a new token. */
  private cuts = 0;
  /**
   * The last answer was a 429 with a Retry-After: when it came. If the next request asks for its turn only
   * after that wait, nothing else was sent meanwhile: the 429 halted the sender (RateController.resumeAfterHalt).
   */
  private refusedAt: { at: number; retryAfterMs: number } | undefined;
  /** The timer that hands out the next token to the line, and how to cancel it. */
  private wakeup: AbortController | undefined;

  constructor(options: AdaptiveRateOptions) {
    this.clock = options.clock;
    this.burstSeconds = options.burstSeconds ?? 0.05;
    this.onHalt = options.onHalt;
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
    this.tokens = options.startFull ? this.burst() : 1;
    this.refilledAt = options.startFull ? now : Number.NaN;
  }

  /** Requests so far that waited for a token while the rate stood at the configured ceiling. */
  get heldByCeiling(): number {
    return this.heldByCeilingCount;
  }

  /** The configured ceiling, requests per second. */
  get ceiling(): number {
    return this.controller.ceiling;
  }

  /** Current allowed rate, requests per second. */
  get currentRate(): number {
    return this.controller.rate;
  }

  /** Take one token: at once when the bucket has one, else in line until one is earned. */
  acquire(signal?: AbortSignal): Promise<void> {
    return this.take(signal, true) ?? RESOLVED;
  }

  /**
   * {@link acquire}, but undefined when the token was taken at once: a caller that checks saves a turn of the event loop.
   * `spread: false`: not held back by the {@link Pacer} (requests whose answers are all wanted at once).
   */
  tryAcquire(signal?: AbortSignal, spread = true): Promise<void> | undefined {
    return this.take(signal, spread);
  }

  /** {@link tryAcquire}; `paced`: wait for the {@link Pacer} after taking a token at once. */
  private take(signal: AbortSignal | undefined, paced: boolean): Promise<void> | undefined {
    const now = this.clock.now();
    this.refill(now);
    if (this.refusedAt !== undefined) this.resumed(now, this.refusedAt);
    if (this.tokens >= 1 && this.heldUntil <= now && this.waiting === 0) {
      this.tokens -= 1;
      const pace = paced ? this.pacer.delay(now) : 0;
      if (pace <= 0) return undefined;
      // A token taken at a rate the service has since refused is not spent: the request waits for one at the new
      // rate (its turn with the pacer is over: the pacer counted it as sent then).
      const cuts = this.cuts;
      return this.clock.sleep(pace, signal).then(() => (this.cuts === cuts ? undefined : this.take(signal, false)));
    }
    this.controller.noteLimited();
    if (this.controller.rate >= this.controller.ceiling) this.heldByCeilingCount++;
    if (signal?.aborted) return Promise.reject(abortedError(signal, 'waiting for the rate limit'));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, stopListening: undefined, gone: false };
      if (signal) {
        // The whole line may wait on the run's signal: onAbort keeps adding and removing constant-time.
        waiter.stopListening = onAbort(signal, () => {
          waiter.gone = true;
          if (--this.waiting === 0) this.clearLine();
          reject(abortedError(signal, 'waiting for the rate limit'));
        });
      }
      this.line.push(waiter);
      this.waiting++;
      this.scheduleWakeup(now);
    });
  }

  /** The first request after a 429: if it asks only once the Retry-After is over, the 429 halted the sender. */
  private resumed(now: number, refused: { at: number; retryAfterMs: number }): void {
    this.refusedAt = undefined;
    // Timers fire late, never early by much; a backoff's jitter may shorten the wait a little.
    if (now - refused.at < refused.retryAfterMs * 0.9) return;
    const decision = this.controller.resumeAfterHalt(now);
    if (decision.change === 'none') return;
    // The wait refilled the bucket at the old rate: what resumes goes at the new one, not as a burst.
    this.tokens = Math.min(this.tokens, 1);
    this.cuts++;
    this.onHalt?.(decision);
  }

  /** The requests in flight at most moved (the adaptive concurrency limit): the pacer spreads that many. */
  setConcurrency(concurrency: number): void {
    this.pacer.setSlots(concurrency);
  }

  /** Whether the controller is still in its slow start (no limit found yet). */
  get inSlowStart(): boolean {
    return this.controller.inSlowStart;
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
    const rateBefore = this.controller.rate;
    const decision = this.controller.onAnswer(throttled, now, sentAt);
    // A 429 often comes back faster than a write: only the service's real work shows how long a round trip takes.
    if (!throttled && sentAt !== undefined) this.pacer.onRoundTrip(sentAt, now);
    // Tokens saved up at the old rate would go out as a burst into a service that just said it is overloaded.
    if (decision.change === 'decrease' || decision.change === 'hold') {
      this.tokens = 0;
      this.cuts++;
    } else if (throttled && this.controller.inSlowStart) {
      // The slow start needs a few 429s in a row to tell a limit from random refusals; meanwhile the requests go at
      // the rate, not as a burst of saved-up tokens into a bucket that may just have run dry.
      this.tokens = 0;
    }
    // Any answer after a 429 means the sender did not stop for it; a hold is a wait of the limiter's own.
    this.refusedAt = throttled && retryAfterMs !== undefined && decision.change !== 'hold' ? { at: now, retryAfterMs } : undefined;
    if (decision.change === 'hold' && retryAfterMs !== undefined) {
      this.heldUntil = Math.max(this.heldUntil, now + retryAfterMs);
      this.controller.restartWindow(this.heldUntil);
    }
    // The line waits at the new rate from now on, sooner or later than it would have.
    if (this.wakeup && (this.controller.rate !== rateBefore || decision.change === 'hold' || decision.change === 'decrease')) {
      this.wakeup.abort();
      this.wakeup = undefined;
      this.scheduleWakeup(now);
    }
    return decision;
  }

  /** The service announced its rate (its headers): the controller takes it at once. */
  announce(rate: number): RateDecision {
    const now = this.clock.now();
    this.refill(now);
    const decision = this.controller.announce(rate, now);
    if (decision.change !== 'none') this.rescheduled(now);
    return decision;
  }

  /** Another process learnt the service-wide limit: `share` is this limiter's part (RateController.adopt). */
  adopt(share: number, how: 'start' | 'limit', part?: number): RateDecision {
    const now = this.clock.now();
    this.refill(now);
    const decision = this.controller.adopt(share, now, how, part);
    if (decision.change === 'decrease') {
      // Saved-up tokens would go out as a burst into a service that just refused another process.
      this.tokens = Math.min(this.tokens, 1);
      this.cuts++;
    }
    if (decision.change !== 'none') this.rescheduled(now);
    return decision;
  }

  /**
   * The service said none is left until `ms` from now (RateLimit-Remaining: 0
   * and its reset): new requests wait until then, without lowering the rate.
   */
  holdFor(ms: number): void {
    const now = this.clock.now();
    if (!(ms > 0) || now + ms <= this.heldUntil) return;
    this.heldUntil = now + ms;
    this.tokens = 0;
    this.cuts++;
    this.controller.restartWindow(this.heldUntil);
    this.rescheduled(now);
  }

  /** A hold placed by {@link holdFor} ends now (what it waited for came sooner): the line is served at once. */
  endHold(): void {
    const now = this.clock.now();
    if (this.heldUntil <= now) return;
    this.heldUntil = now;
    this.controller.restartWindow(now);
    this.rescheduled(now);
  }

  /** The line waits at the new rate (or hold) from now on. */
  private rescheduled(now: number): void {
    if (!this.wakeup) return;
    this.wakeup.abort();
    this.wakeup = undefined;
    this.scheduleWakeup(now);
  }

  /** Set the timer for when the next token is earned (or the hold ends), unless one is set. */
  private scheduleWakeup(now: number): void {
    if (this.wakeup) return;
    // Whole microseconds: a token short by a rounding error must not be waited for with a timer of 10⁻¹⁰ ms, again and again.
    const earned = this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) * 1e6) / this.controller.rate) / 1000;
    const wakeup = new AbortController();
    this.wakeup = wakeup;
    this.clock.sleep(Math.max(earned, this.heldUntil - now, 0), wakeup.signal).then(
      () => {
        if (this.wakeup !== wakeup) return;
        this.wakeup = undefined;
        this.serveLine();
      },
      () => undefined, // cancelled: a new timer was set at the new rate, or nobody waits any more
    );
  }

  /** Hand the tokens earned so far to the line, in order; set the timer for the rest. */
  private serveLine(): void {
    const now = this.clock.now();
    this.refill(now);
    const line = this.line;
    while (this.head < line.length) {
      const waiter = line[this.head]!;
      if (!waiter.gone) {
        if (this.tokens < 1 || this.heldUntil > now) break;
        this.tokens -= 1;
        this.waiting--;
        waiter.stopListening?.();
        waiter.resolve();
      }
      this.head++;
    }
    if (this.waiting === 0) return this.clearLine();
    if (this.head > 1024) {
      line.splice(0, this.head);
      this.head = 0;
    }
    this.scheduleWakeup(now);
  }

  /** Nobody is left waiting (served, or aborted on shutdown): no timer may keep the process alive for a hold. */
  private clearLine(): void {
    this.line.length = 0;
    this.head = 0;
    this.wakeup?.abort();
    this.wakeup = undefined;
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
