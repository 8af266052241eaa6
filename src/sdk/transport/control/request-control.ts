/**
 * Adaptive concurrency and rate on the request path: what the transport
 * consults before every attempt and tells after it (docs/sink.md, "Finding
 * the service's limit", has the algorithm and its reasons).
 *
 * - **Concurrency** ({@link ConcurrencyLimit}): the requests in flight are
 *   found from the round trips, in the manner of TCP Vegas and the gradient
 *   limiters (raised while the round trip stays at its no-load floor, lowered
 *   when it rises or the service answers 503), up to a bound. A request slot
 *   ({@link Slots}) is held from admission to the answer only: a request
 *   waiting to retry holds none.
 * - **Rate** ({@link AdaptiveRateLimiter}, the one token bucket of ferry's
 *   requests): a slow start from a modest rate, then held just under where
 *   the service's 429s appear ({@link RateController}), up to a bound.
 *
 * One per service (or per sync, whose bounds are its own), shared by every
 * request to it; the transport enters it before the breaker and leaves it
 * with the answer (status, Retry-After), so the service client, exports and
 * the pusher are all paced by what was learnt from all of their answers.
 */
import type { Clock } from '../../clock.js';
import { monotonicClock } from '../../clock.js';
import { abortedError } from '../../http-retry.js';
import { CONCURRENCY_CAP, ConcurrencyLimit, INITIAL_CONCURRENCY } from './concurrency-limit.js';
import type { ConcurrencyReason } from './concurrency-limit.js';
import { AdaptiveRateLimiter } from './rate-limiter.js';
import type { RateDecision } from './rate-controller.js';
import { Slots } from './slots.js';
import { announcedLimit, announcedRate, hasRateHeaders } from './rate-headers.js';
import type { RateShare, ShareMember } from './rate-share.js';
import type { AnswerHeaders } from '../wire.js';

/** Why the rate is not higher. */
export type RateReason =
  /** The service answered 429 above it: its limit, as found. */
  | 'throttled'
  /** The configured bound held requests back. */
  | 'bound'
  /** No limit found, and the rate does not bind: something else sets the pace. */
  | 'unlimited';

/** What an earlier run learnt of the service: the control starts near it. */
export interface LearntLimits {
  concurrency: number;
  /** Requests per second the service accepted, when it showed a limit (429s). */
  rate?: number;
}

export interface RequestControlOptions {
  /** Upper bound on requests in flight. @default {@link CONCURRENCY_CAP} */
  concurrency?: number;
  /** Upper bound on the request rate, requests per second. @default none: the service's limit is found */
  maxRequestsPerSecond?: number;
  /** Start near what an earlier run learnt instead of the cold defaults. */
  learnt?: LearntLimits;
  /** Lowest rate 429s can push it to. @default 0.5 */
  minRequestsPerSecond?: number;
  /** Window sizes of the rate controller (tests use small ones). */
  rateWindow?: { minWindowMs?: number; minWindowAnswers?: number };
  /** Monotonic milliseconds and sleep. @default the monotonic clock */
  clock?: Clock;
  /** Epoch ms, for a reset given as an epoch time. @default Date.now */
  wallClock?: () => number;
  /**
   * What processes sharing the API key learn together (rate-share.ts): this
   * control starts at its share of the rate learnt service-wide, and its
   * 429s lower the others' rates too.
   */
  share?: RateShare;
  /** Told of every change of the rate (a debug log). Must not throw. */
  onRateChange?: (decision: Exclude<RateDecision, { change: 'none' }>, retryAfterMs: number | undefined) => void;
}

/** What {@link RequestControl.enter} gives: hand it back to {@link RequestControl.leave}. */
export interface ControlTicket {
  /** When the request went (after its slot and its turn). */
  sentAt: number;
  /** Requests in flight when it went, itself included. */
  inFlight: number;
}

/** A snapshot for the summary, metrics and the progress line. */
export interface ControlStats {
  /** Requests per second the rate allows now. */
  rate: number;
  rateReason: RateReason;
  /** Requests that may be in flight now. */
  concurrency: number;
  concurrencyReason: ConcurrencyReason;
  peakInFlight: number;
  /** Requests admitted and not yet answered. */
  inFlight: number;
  /** The round trip without load as found, ms. */
  noLoadRoundTripMs: number | undefined;
  /** Requests that waited while the rate stood at the configured bound. */
  heldByCeiling: number;
  /** The configured bounds (undefined: none). */
  rateBound: number | undefined;
  concurrencyBound: number | undefined;
}

/**
 * The slow start begins at this many requests per second per request slot
 * when a concurrency bound says what the user expects of the service, but at
 * least START_LEAST, and doubles every few tens of milliseconds from there
 * while the rate binds (docs/sink.md gives the trade-off).
 */
const START_PER_SLOT = 40;
const START_LEAST = 50;
/**
 * The rate controller's ceiling without a bound: a number (the bucket's burst
 * is a share of the rate) far above anything one process sends; the slow
 * start grows only while the rate binds, so growth alone never reaches it.
 */
const UNBOUNDED_RATE = 100_000;

/** See the module comment. */
export class RequestControl {
  private readonly slots: Slots;
  private readonly concurrencyLimit: ConcurrencyLimit;
  private readonly limiter: AdaptiveRateLimiter;
  private readonly clock: Clock;
  private readonly rateBound: number | undefined;
  private readonly concurrencyBound: number | undefined;
  private readonly onRateChange: RequestControlOptions['onRateChange'];
  private readonly wallClock: () => number;
  private inFlightNow = 0;
  private peak = 0;
  private admittedCount = 0;
  private acceptedCount = 0;
  private readonly share: RateShare | undefined;
  /** This control as its share sees it (held here only: the share keeps a weak reference). */
  private readonly member: ShareMember | undefined;
  private readonly leaveShare: (() => void) | undefined;

  constructor(options: RequestControlOptions = {}) {
    this.clock = options.clock ?? monotonicClock;
    this.rateBound = options.maxRequestsPerSecond;
    this.concurrencyBound = options.concurrency;
    this.onRateChange = options.onRateChange;
    this.wallClock = options.wallClock ?? Date.now;
    const cap = options.concurrency ?? CONCURRENCY_CAP;
    // Near what the last run learnt (a quarter below: a service that got slower meanwhile is not hit at the old figure).
    const initial = options.learnt ? Math.max(INITIAL_CONCURRENCY, Math.round(options.learnt.concurrency * 0.75)) : INITIAL_CONCURRENCY;
    this.concurrencyLimit = new ConcurrencyLimit({ max: cap, initial }, this.clock.now());
    this.slots = new Slots(this.concurrencyLimit.limit);
    const ceiling = options.maxRequestsPerSecond ?? UNBOUNDED_RATE;
    const coldStart = options.concurrency === undefined ? START_LEAST : Math.max(START_LEAST, options.concurrency * START_PER_SLOT);
    // A rate learnt before starts the slow start a little below it: the limit shows again within a second, not a burst past it.
    const start = options.learnt?.rate !== undefined ? Math.max(START_LEAST, options.learnt.rate * 0.9) : coldStart;
    this.limiter = new AdaptiveRateLimiter({
      maxPerSecond: ceiling,
      concurrency: this.concurrencyLimit.limit,
      startPerSecond: Math.min(ceiling, start),
      ...(options.minRequestsPerSecond === undefined ? {} : { minPerSecond: options.minRequestsPerSecond }),
      ...options.rateWindow,
      clock: this.clock,
      onHalt: (decision) => this.onRateChange?.(decision, undefined),
    });
    this.share = options.share;
    if (this.share) {
      this.member = {
        counts: () => ({ admitted: this.admittedCount, accepted: this.acceptedCount }),
        adopt: (rate, how, part) => {
          const decision = this.limiter.adopt(rate, how, part);
          if (decision.change !== 'none') this.onRateChange?.(decision, undefined);
        },
        holdFor: (ms) => this.limiter.holdFor(ms),
        release: () => this.limiter.endHold(),
      };
      this.leaveShare = this.share.join(this.member);
    }
  }

  /** Leave the share (a control that will send no more): the others split the rate without it. */
  close(): void {
    this.leaveShare?.();
  }

  /**
   * Admit one attempt: a request slot, then the rate's turn. A ticket at once
   * when both are free (no promise: the hot path), else a promise of one;
   * rejects with FERRY_ABORTED when `signal` fires (a slot taken meanwhile is given back).
   * `spread: false`: the rate's turn without the pacer's even spread (a
   * reader's probes, whose answers are all needed before it goes on).
   */
  enter(signal?: AbortSignal, spread = true): ControlTicket | Promise<ControlTicket> {
    if (signal?.aborted) return Promise.reject(abortedError(signal, 'waiting for a request slot'));
    const slot = this.slots.acquire();
    if (slot === undefined) return this.turn(signal, spread);
    return slot.then(() => this.turn(signal, spread));
  }

  /** Holding a slot: the rate's turn, then the ticket. The slot is given back if the wait fails. */
  private turn(signal: AbortSignal | undefined, spread: boolean): ControlTicket | Promise<ControlTicket> {
    let turn: Promise<void> | undefined;
    try {
      if (signal?.aborted) throw abortedError(signal, 'waiting for a request slot');
      turn = this.limiter.tryAcquire(signal, spread);
    } catch (error) {
      this.slots.release();
      return Promise.reject(error);
    }
    if (turn === undefined) return this.ticket();
    return turn.then(
      () => this.ticket(),
      (error: unknown) => {
        this.slots.release();
        throw error;
      },
    );
  }

  private ticket(): ControlTicket {
    const inFlight = ++this.inFlightNow;
    this.admittedCount++;
    if (inFlight > this.peak) this.peak = inFlight;
    // When it went (not when it began to wait for its turn): a 429 to a request sent before the last decrease is old news.
    return { sentAt: this.limiter.now(), inFlight };
  }

  /**
   * The attempt that held `ticket` is over: `status` its HTTP status, null
   * when nothing was answered (refused, reset, timed out), `unsent` when it
   * never went. A 429 lowers the rate (with its Retry-After); every answer's
   * round trip and status steer the concurrency. `headers`: the answer's,
   * for the limit a service announces (RateLimit-*, X-RateLimit-*).
   */
  leave(ticket: ControlTicket, status: number | null | 'unsent', retryAfterMs?: number, headers?: AnswerHeaders): void {
    this.inFlightNow--;
    this.slots.release();
    if (status === 'unsent') return;
    const now = this.limiter.now();
    const limit = this.concurrencyLimit.onAnswer({ status, roundTripMs: now - ticket.sentAt, inFlight: ticket.inFlight }, now);
    if (limit !== this.slots.capacity) {
      this.slots.resize(limit);
      this.limiter.setConcurrency(limit);
    }
    // No answer says nothing about the rate (an outage is the breaker's business).
    if (status === null) return;
    if (headers !== undefined && hasRateHeaders(headers)) this.announced(headers);
    const throttled = status === 429;
    if (!throttled) this.acceptedCount++;
    const decision = this.limiter.onAnswer(throttled, throttled ? retryAfterMs : undefined, ticket.sentAt);
    if (decision.change === 'none') return;
    this.onRateChange?.(decision, throttled ? retryAfterMs : undefined);
    if (this.member && (decision.change === 'decrease' || decision.change === 'hold')) {
      this.share?.throttled(this.member, decision.rate, decision.change === 'hold' ? retryAfterMs : undefined);
    }
  }

  /** What the service's headers say of its limit, used at once: its rate bounds ours; none left waits for the reset. */
  private announced(headers: AnswerHeaders): void {
    const limit = announcedLimit(headers, this.wallClock());
    const rate = announcedRate(limit);
    if (rate !== undefined) {
      const decision = this.limiter.announce(rate);
      if (decision.change !== 'none') this.onRateChange?.(decision, undefined);
    }
    if (limit.remaining === 0 && limit.resetMs !== undefined) this.limiter.holdFor(limit.resetMs);
  }

  /**
   * Run `attempt` admitted: for a caller whose requests do not go through a
   * transport (a test's in-memory service). `answerOf` reads what a
   * rejection was answered (status, null for none, and Retry-After); by
   * default the `status` and `retryAfterMs` ferry's ServiceError carries.
   */
  admitted<T>(attempt: () => Promise<T>, signal?: AbortSignal, answerOf: (error: unknown) => { status: number | null; retryAfterMs?: number | undefined } = answered): Promise<T> {
    const fail = (ticket: ControlTicket, error: unknown): void => {
      const { status, retryAfterMs } = answerOf(error);
      this.leave(ticket, status, retryAfterMs);
    };
    const go = (ticket: ControlTicket): Promise<T> => {
      let sending: Promise<T>;
      try {
        sending = attempt();
      } catch (error) {
        fail(ticket, error);
        return Promise.reject(error);
      }
      return sending.then(
        (value) => {
          this.leave(ticket, 200);
          return value;
        },
        (error: unknown) => {
          fail(ticket, error);
          throw error;
        },
      );
    };
    const entered = this.enter(signal);
    return entered instanceof Promise ? entered.then(go) : go(entered);
  }

  /** The caller has read its source to the end: stop probing past the service's limit (RateController.finish). */
  finish(): void {
    this.limiter.finish();
  }

  /** Requests admitted and not answered yet. */
  get inFlight(): number {
    return this.inFlightNow;
  }

  /** Requests that may be in flight now. */
  get concurrency(): number {
    return this.concurrencyLimit.limit;
  }

  private rateReason(): RateReason {
    if (this.rateBound !== undefined && this.limiter.heldByCeiling > 0 && this.limiter.currentRate >= this.rateBound) return 'bound';
    return this.limiter.inSlowStart ? 'unlimited' : 'throttled';
  }

  stats(): ControlStats {
    return {
      rate: this.limiter.currentRate,
      rateReason: this.rateReason(),
      concurrency: this.concurrencyLimit.limit,
      concurrencyReason: this.concurrencyLimit.reason,
      peakInFlight: this.peak,
      inFlight: this.inFlightNow,
      noLoadRoundTripMs: this.concurrencyLimit.noLoadRoundTripMs,
      heldByCeiling: this.limiter.heldByCeiling,
      rateBound: this.rateBound,
      concurrencyBound: this.concurrencyBound,
    };
  }
}

/** What a failed call was answered: its `status` (null: no answer) and `retryAfterMs`, as ferry's ServiceError carries them. */
function answered(error: unknown): { status: number | null; retryAfterMs: number | undefined } {
  const { status, retryAfterMs } = (typeof error === 'object' && error !== null ? error : {}) as { status?: unknown; retryAfterMs?: unknown };
  return {
    status: typeof status === 'number' && Number.isInteger(status) ? status : null,
    retryAfterMs: typeof retryAfterMs === 'number' && retryAfterMs > 0 ? retryAfterMs : undefined,
  };
}
