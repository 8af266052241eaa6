/**
 * Finds and holds the request rate a service accepts, congestion-control
 * style, from the answers it gives (docs/sink.md has the reasoning):
 *
 * - A slow start (slow-start.ts), when a start rate below the
 *   ceiling is given, grows the rate multiplicatively until the service shows
 *   a limit, and drops to just below the limit it found.
 * - Answers are counted in windows (at least `minWindowMs` and
 *   `minWindowAnswers` answers, or two seconds and five answers at a rate
 *   too low to fill one sooner; an overloaded window closes as soon as it
 *   has a few 429s, a fifth of it). A window decides once: one decrease per window, however
 *   many 429s arrived in it, and 429s to requests sent before a decrease are
 *   ignored (requests in flight together are one signal, acted on once).
 * - A window is *congested* when its share of 429s is above the service's
 *   usual share by more than its sampling noise (three standard deviations)
 *   plus a margin. The usual share is learnt: in the slow start, and when the
 *   window right after a clear decrease still sees about as many 429s while
 *   what was accepted fell with what was sent, or three decreases in a row
 *   left the share where it was, they do not come from the rate (a service
 *   that refuses some requests whatever the load), and cutting further would
 *   only starve the run.
 * - On congestion the rate drops to a little below what the service
 *   accepted over the last second (an overloaded service's accepted rate is
 *   its limit), by at most 75 % per window; before a whole second of answers
 *   it halves (not below what a window that lasted 100 ms saw accepted). When
 *   the client stalled (far less went than the rate allowed, little refused)
 *   the cut is mild, and a limit measured far below the last one is
 *   remembered at most 10 % lower: a busy machine is not a lower limit.
 * - A window without congestion, in which the rate held requests back,
 *   raises it (additive, scaled to the rate): by a quarter while far below
 *   the last limit found, by 1 % of that limit per window near it, so the rate
 *   probes the limit gently instead of overshooting it again (by half that,
 *   then a quarter, once probes found the same limit again: each probe costs
 *   429s, and a limit that holds still needs fewer), and faster and faster
 *   past it; past the slow start's estimate (a few answers, often far low)
 *   by 10 % a window until a first congestion measures the limit.
 * - Two congested windows in a row in which the service accepted nothing
 *   (it refuses everything, whatever the rate) ask the limiter to hold new
 *   requests until the Retry-After has passed.
 * - A 429 that halted the sender (nothing else in flight, nothing sent until
 *   its Retry-After was over: a reader one request at a time) shows a limit
 *   no window can: the service accepted the clean run before it, n answers
 *   in the time T between the first of them and the refused request, and a
 *   bucket holding at least one token at the start of it has a rate below
 *   n ÷ T. The rate resumes at half that, or at what two such runs of
 *   different lengths show ({@link RateController.resumeAfterHalt}), not at
 *   full speed into a bucket the wait refilled only to its burst. A halt
 *   after a shorter clean run than the last one, at no higher a rate, shows
 *   429s that do not come from the rate (a service refusing at random): the
 *   rate goes back to where it was and halts no longer cut it.
 * - Once the source has been read to the end ({@link RateController.finish}),
 *   the rate stays a little below the last limit found instead of probing
 *   past it, where the 429s come from the rate: a probe's 429 among the last
 *   records delays the run's end by the whole Retry-After, and a higher limit
 *   found then would save nothing.
 */

import { SlowStart } from './slow-start.js';

export interface RateControllerOptions {
  /** The configured ceiling, requests per second; the rate never exceeds it. */
  ceiling: number;
  /** Where the slow start begins, requests per second. @default the ceiling (no slow start) */
  initial?: number;
  /** Lowest rate congestion can push it to. @default 0.5 */
  floor?: number;
  /** @default 250 */
  minWindowMs?: number;
  /** @default 20 */
  minWindowAnswers?: number;
}

/** What closing a window decided, for the limiter and for logs. */
export type RateDecision = { change: 'none' } | { change: 'increase' | 'decrease'; rate: number } | { change: 'hold'; rate: number };

/** A service refusing more than this at random is not one to be paced by; above it, 429s always count. */
const MAX_USUAL_SHARE = 0.3;
/** Decreases in a row that leave the 429 share where it was before it is taken as the service's habit. */
const PERSISTING_DECREASES = 3;
/** A window must be this much above the usual 429 share to count as congested. */
const MARGIN = 0.01;
/** After a decrease, settle this far below what the service accepted over the last second. */
const BELOW_LIMIT = 0.97;
/** Below this share of the rate sent over the last second, the client, not the service, set what was accepted. */
const SENT_AT_RATE = 0.8;
/** The span over which the accepted rate is measured on congestion. */
const HORIZON_MS = 1000;
/** An overloaded window closes early once it has this many 429s, at least a fifth of its answers. */
const EARLY_THROTTLED = 4;
/** Slow start: each accepted answer while the rate binds adds this much (requests/s), so the rate doubles every ~35 ms. */
const SLOW_START_STEP = 20;
/** A measured limit within this much of the last one confirms it. */
const SAME_LIMIT = 0.05;
/** The fewest answers a window of a control sending a part of the key's requests closes on. */
const MIN_WINDOW_ANSWERS = 5;
/**
 * A window this long closes on MIN_WINDOW_ANSWERS answers: at a rate far below the service's (a process
 * the others' 429s pushed near the floor), twenty answers take twenty seconds a window at one a second,
 * and the climb back took minutes.
 */
const SLOW_WINDOW_MS = 2000;
/** Confirmations after which the probe near the limit is slowed no further (a quarter of 1 % of the limit per window): more would find a limit that grew too late. */
const MAX_CONFIRMED = 2;

export class RateController {
  /** The configured ceiling. */
  private readonly configured: number;
  /** The rate the service's own headers announce (RateLimit-Policy and the like), when they do. */
  private announced = Number.POSITIVE_INFINITY;
  private readonly floor: number;
  private readonly minWindowMs: number;
  private minWindowAnswers: number;
  /** The window's answers as configured, for a control that sends all of the key's requests. */
  private readonly windowAnswers: number;
  private current: number;
  /** The accepted rate of the last congested window: the service's limit as last found. */
  private limit = Number.POSITIVE_INFINITY;
  /** Whether `limit` was measured over a whole second of answers (not estimated in a slow start or a halving). */
  private limitMeasured = false;
  /** `limit` is the slow start's estimate (a handful of answers to a ramp of requests): past it the probe starts fast. */
  private limitFromSlowStart = false;
  /** The usual share of 429s (moving average of windows without congestion). */
  private usualShare = 0;
  /** The window that caused the last decrease, until the next window is judged against it. */
  private beforeCut: WindowRates | undefined;
  private readonly recent: RecentCount;
  /** Every answer that counts (429s too): what was sent, to tell a stalled client from a limit. */
  private readonly answered: RecentCount;
  /** Increases in a row past the last limit found: the probe speeds up, the limit may have grown. */
  private probesPast = 0;
  /** Measured limits in a row within {@link SAME_LIMIT} of the one before: the limit holds still, probe it more slowly. */
  private confirmed = 0;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;
  /** Measured decreases in a row after which the 429 share stayed about the same. */
  private persisting = 0;
  /** The last window had no accepted answer: a second such window means the service refuses everything. */
  private acceptedNothing = false;
  private window: { start: number; accepted: number; throttled: number; limited: boolean };
  /** Growing multiplicatively until the service shows a limit (for good, when it never does). */
  private slowStart: SlowStart | undefined;
  /** The source has been read to the end: what is left is sent without probing past the limit (see {@link finish}). */
  private finishing = false;
  /** The answers since the last 429 that counted: the first accepted one (when its request went, its round trip), how many were accepted. */
  private clean = { from: Number.NEGATIVE_INFINITY, firstSentAt: Number.NaN, firstRoundTrip: 0, accepted: 0 };
  /** The last 429 that counted: when its request went, and the clean run before it (for {@link resumeAfterHalt}). */
  private refusal: { sentAt: number; firstSentAt: number; firstRoundTrip: number; accepted: number } | undefined;
  /** The shortest round trip of any answer, 429s included: the network's part of one. */
  private shortestRoundTrip = Number.POSITIVE_INFINITY;
  /** The last halt that cut the rate: its clean run (accepted answers, the span they took, the rate they went at). */
  private lastHalt: { accepted: number; span: number; rate: number; resumed: boolean } | undefined;
  /** Before the first halt cut the rate: the rate and the slow start, restored if the halts prove random. */
  private beforeHalts: { rate: number; slowStart: SlowStart | undefined } | undefined;
  /** A halt came after a shorter clean run than the one before: the 429s are not the rate's, halts cut no more. */
  private haltsAtRandom = false;

  constructor(options: RateControllerOptions, now: number) {
    this.configured = options.ceiling;
    this.floor = Math.min(options.floor ?? 0.5, this.ceiling);
    this.minWindowMs = options.minWindowMs ?? 250;
    this.minWindowAnswers = this.windowAnswers = options.minWindowAnswers ?? 20;
    this.current = clamp(options.initial ?? this.ceiling, this.floor, this.ceiling);
    if (this.current < this.ceiling) this.slowStart = new SlowStart();
    this.recent = new RecentCount();
    this.answered = new RecentCount();
    this.window = { start: now, accepted: 0, throttled: 0, limited: false };
  }

  /** The rate never exceeds this: the configured ceiling, or the rate the service announced when lower. */
  get ceiling(): number {
    return Math.min(this.configured, this.announced);
  }

  /**
   * The service's headers announce its limit (`rate` requests per second):
   * used at once — the rate goes just below it, the slow start (a search for
   * a limit now known) ends, and it bounds the rate until announced otherwise.
   */
  announce(rate: number, now: number): RateDecision {
    if (!(rate > 0) || rate === this.announced) return { change: 'none' };
    this.announced = Math.max(rate, this.floor);
    this.slowStart = undefined;
    this.limitFromSlowStart = false;
    this.limit = this.announced;
    this.limitMeasured = true;
    this.window = { start: now, accepted: 0, throttled: 0, limited: false };
    const before = this.current;
    this.current = clamp(this.announced * BELOW_LIMIT, this.floor, this.ceiling);
    return { change: this.current < before ? 'decrease' : 'increase', rate: this.current };
  }

  /**
   * The service-wide limit was learnt by other processes sharing the key
   * (rate-share.ts): `share` is this controller's part of it. It ends a slow
   * start (a search for a limit others found) with the share as the limit,
   * and `start` goes just below it. A limit this controller found itself
   * stays its own: a share measured low (a busy machine, another process
   * stalled) would otherwise be probed up from 1 % at a time (docs/sink.md,
   * "Across processes", says what cutting everyone at once cost).
   */
  adopt(share: number, now: number, how: 'start' | 'limit', part = 1): RateDecision {
    if (!(share > 0)) return { change: 'none' };
    // A part of the key's requests: windows of that part of the answers, so that the key as a whole probes as often
    // as one control sending all of them would (four at a quarter each, with whole windows, probed a quarter as fast).
    this.minWindowAnswers = Math.max(MIN_WINDOW_ANSWERS, Math.round(this.windowAnswers * Math.min(1, part)));
    const searching = this.slowStart !== undefined;
    if (how === 'limit' && !searching) return { change: 'none' };
    if (searching || how === 'start') {
      this.slowStart = undefined;
      this.limitFromSlowStart = false;
      this.limit = Math.max(share, this.floor);
      this.limitMeasured = true;
      this.confirmed = 0;
      this.probesPast = 0;
    }
    const target = clamp(share * BELOW_LIMIT, this.floor, this.ceiling);
    const before = this.current;
    if (how === 'limit') return { change: 'none' };
    this.current = target;
    // 429s to requests sent before are the congestion the others already acted on.
    this.lastDecreaseAt = now;
    this.window = { start: now, accepted: 0, throttled: 0, limited: false };
    return { change: target < before ? 'decrease' : 'increase', rate: target };
  }

  /** Requests per second allowed now. */
  get rate(): number {
    return this.current;
  }

  /** Still growing multiplicatively: the service has shown no limit yet. */
  get inSlowStart(): boolean {
    return this.slowStart !== undefined;
  }

  /** The rate held a request back (the bucket was empty): a window without congestion may raise it. */
  noteLimited(): void {
    this.window.limited = true;
  }

  /**
   * The last records are on their way: from now on the rate does not probe
   * past the last limit found, and one above it comes down to just below it.
   * A 429 to one of the last requests makes the run's end wait the whole
   * Retry-After (a second is 6 % of a 15-second run) while nothing else is
   * left to send; a higher limit found so late would save almost nothing.
   * Congestion still lowers the rate. It applies only where 429s come from
   * the rate: a service that never refused has no limit to stay under, and
   * one that refuses a share whatever the rate (the usual share) refuses the
   * last requests as often whether the rate probes or not, while a limit
   * measured among its random 429s is often low and would only slow the
   * retries the run ends with.
   */
  finish(): void {
    this.finishing = true;
    const highest = this.highest();
    if (this.slowStart === undefined) this.current = Math.min(this.current, highest);
  }

  /** The rate's upper bound now: the ceiling, or just below the last limit found once the run is finishing (see {@link finish}). */
  private highest(): number {
    if (!this.finishing || !Number.isFinite(this.limit) || this.usualShare >= MARGIN) return this.ceiling;
    return clamp(this.limit * BELOW_LIMIT, this.floor, this.ceiling);
  }

  /** Start counting afresh at `at` (after a hold: the held time says nothing about the rate). */
  restartWindow(at: number): void {
    this.window = { start: at, accepted: 0, throttled: 0, limited: false };
    this.recent.restart(at);
    this.answered.restart(at);
  }

  /**
   * One answer: `throttled` for a 429, anything else (success, refusal, 5xx)
   * counts as accepted traffic. A 429 to a request sent before the last
   * decrease is part of the congestion already acted on, and is ignored.
   */
  onAnswer(throttled: boolean, now: number, sentAt: number = now): RateDecision {
    // Only a 429 that was the last answer can have halted the sender.
    this.refusal = undefined;
    if (throttled && sentAt < this.lastDecreaseAt) return { change: 'none' };
    const w = this.window;
    this.answered.add(now);
    if (now - sentAt < this.shortestRoundTrip) this.shortestRoundTrip = now - sentAt;
    if (throttled) {
      w.throttled++;
      this.refusal = { sentAt, ...this.clean };
      this.clean = { from: sentAt, firstSentAt: Number.NaN, firstRoundTrip: 0, accepted: 0 };
    } else {
      w.accepted++;
      this.recent.add(now);
      const clean = this.clean;
      if (sentAt >= clean.from) {
        clean.accepted++;
        if (!(sentAt >= clean.firstSentAt)) {
          clean.firstSentAt = sentAt;
          clean.firstRoundTrip = now - sentAt;
        }
      }
    }
    if (this.slowStart) return this.slowStartAnswer(this.slowStart, throttled, now, sentAt);
    const answers = w.accepted + w.throttled;
    const elapsed = now - w.start;
    const overloaded = w.throttled >= EARLY_THROTTLED && w.throttled * 5 >= answers;
    const full = answers >= this.minWindowAnswers && elapsed >= this.minWindowMs;
    const slow = answers >= Math.min(MIN_WINDOW_ANSWERS, this.minWindowAnswers) && elapsed >= Math.max(SLOW_WINDOW_MS, this.minWindowMs);
    if (!overloaded && !full && !slow) return { change: 'none' };
    return this.close(now, Math.max(elapsed, 1));
  }

  /**
   * The last 429 halted the sender: nothing else was in flight, and nothing
   * was sent until its Retry-After was over (a reader one request at a time).
   * No window shows such a sender a limit (each 429 stops it for the whole
   * wait, and the wait refills the service's bucket to its burst, which the
   * next few requests at full speed empty again), so the clean run before
   * the 429 is the measure: its n accepted answers went in the time T from
   * the first of them to the refused request, and a bucket that had a token
   * for the first refills at less than n ÷ T. The rate resumes at half that
   * (a bucket's burst makes n ÷ T an overestimate, by up to twice over a
   * short run), or, after a second halt whose clean run was longer, at just
   * below what the longer run let through beyond the shorter over the time
   * it lasted longer (both began with the bucket refilled to its burst); the
   * slow start is over. The wait says nothing about the rate: the windows
   * and the accepted rate are counted from now. A halt after fewer accepted
   * answers than the last, at no higher a rate, is no bucket's doing
   * ({@link haltsAreRandom}).
   */
  resumeAfterHalt(now: number): RateDecision {
    const refusal = this.refusal;
    this.refusal = undefined;
    // No clean run before it (a 429 right after the last wait): nothing to measure; the windows judge those. Once the
    // source has been read to the end, a halt is the last record's retry with nothing else left to send: a cut would
    // save nothing, and the run would keep it as the rate it learnt for the next one.
    if (this.haltsAtRandom || this.finishing || refusal === undefined || refusal.accepted < 1) return { change: 'none' };
    // The first request of a run may take long to arrive (a connection opened, code compiled): what its round trip took
    // beyond the shortest one is taken as time before it reached the service, which the span does not include.
    const span = refusal.sentAt - refusal.firstSentAt - Math.max(0, refusal.firstRoundTrip - this.shortestRoundTrip);
    if (!(span > 0)) return { change: 'none' };
    const last = this.lastHalt;
    const halt = { accepted: refusal.accepted, span, rate: this.current, resumed: last !== undefined };
    // Only runs that both began when a wait was over are alike: the first run of all began with a bucket in an unknown
    // state, and with a first request that may have been slow to arrive (it let two through where a burst of one refills).
    if (last?.resumed === true && halt.rate <= last.rate && halt.accepted < last.accepted) return this.haltsAreRandom();
    const bound = (halt.accepted * 1000) / span;
    // A bucket's burst makes n ÷ T an overestimate, by up to twice over a short run: half of it is below the limit.
    let target = bound / 2;
    if (last !== undefined && halt.accepted > last.accepted && halt.span > last.span) {
      // Two runs from a bucket refilled to the same burst: what the longer let through beyond the shorter was earned
      // over the time it lasted longer, at the bucket's rate.
      const solved = ((halt.accepted - last.accepted) * 1000) / (halt.span - last.span);
      target = clamp(solved * 0.95, bound / 2, bound * 0.9);
    }
    this.lastHalt = halt;
    this.beforeHalts ??= { rate: this.current, slowStart: this.slowStart };
    this.restartWindow(now);
    this.slowStart = undefined;
    this.limitFromSlowStart = false;
    this.current = clamp(Math.min(this.current, target), this.floor, this.ceiling);
    // Just above the new rate, as after a halving: the climb back probes gently from there.
    this.limit = Math.max(this.current / BELOW_LIMIT, this.floor);
    this.limitMeasured = false;
    this.confirmed = 0;
    this.probesPast = 0;
    this.lastDecreaseAt = now;
    return { change: 'decrease', rate: this.current };
  }

  /**
   * A halt came after fewer accepted answers than the one before, at a rate
   * no higher: a bucket lets more through before its first 429 the slower it
   * is asked, never fewer, so these 429s are not the rate's (a service
   * refusing at random). The rate and the slow start go back to where they
   * were before the halts, and halts no longer cut the rate.
   */
  private haltsAreRandom(): RateDecision {
    this.haltsAtRandom = true;
    const before = this.beforeHalts;
    if (before === undefined) return { change: 'none' };
    const rate = this.current;
    this.slowStart = before.slowStart;
    this.current = clamp(Math.max(this.current, before.rate), this.floor, this.highest());
    return this.current > rate ? { change: 'increase', rate: this.current } : { change: 'none' };
  }

  /** Slow start: grow on a clean run of accepted answers; when it ends, drop to just below the limit it found. */
  private slowStartAnswer(slowStart: SlowStart, throttled: boolean, now: number, sentAt: number): RateDecision {
    const step = slowStart.onAnswer(throttled, sentAt, this.current);
    if (!('exit' in step)) {
      // Only while the rate binds (it held a request back within the last 40 answers): enough headroom that the
      // pacing costs a client-bound run nothing, but a rate the client does not reach does not grow out of all proportion.
      if (step.grow && this.window.limited) this.current = Math.min(this.ceiling, this.current + SLOW_START_STEP);
      if ((this.window.accepted + this.window.throttled) % 40 === 0) this.window.limited = false;
      return { change: 'none' };
    }
    this.slowStart = undefined;
    this.window = { start: now, accepted: 0, throttled: 0, limited: false };
    this.lastDecreaseAt = now;
    // What the slow start saw refused before the limit showed is the service's habit, not congestion.
    this.usualShare = Math.min(step.usualShare, MAX_USUAL_SHARE);
    // A limit below what the service accepted over the last second is not its limit. A service refusing a share
    // at random can end a long slow start by chance (its test runs at every answer): in the fault mix one did so
    // after 4 s at 8,500 accepted/s with a limit of 3,400 found, and the run spent seconds climbing back.
    this.limit = Math.max(step.limit, this.recent.rate(now) ?? 0, this.floor);
    this.limitFromSlowStart = true;
    this.current = clamp(Math.max(this.limit * BELOW_LIMIT, this.current * 0.25), this.floor, this.ceiling);
    return { change: 'decrease', rate: this.current };
  }

  private close(now: number, elapsedMs: number): RateDecision {
    const w = this.window;
    this.window = { start: now, accepted: 0, throttled: 0, limited: false };
    const rates = windowRates(w, elapsedMs);
    const share = rates.share;
    if (this.beforeCut) {
      // 429s that stay after a decrease: after a clear test, or after a few decreases in a row, they are the service's habit.
      this.persisting = share >= this.beforeCut.share * 0.7 ? this.persisting + 1 : 0;
      if (unrelatedToRate(this.beforeCut, rates) || this.persisting >= PERSISTING_DECREASES) {
        this.usualShare = Math.min(share, MAX_USUAL_SHARE);
        this.persisting = 0;
      }
    }
    this.beforeCut = undefined;
    if (w.throttled > 0 && share > this.congestedAbove(w.accepted + w.throttled)) {
      this.lastDecreaseAt = now;
      this.limitFromSlowStart = false;
      const refusedAll = w.accepted === 0 && this.acceptedNothing;
      this.acceptedNothing = w.accepted === 0;
      if (refusedAll) {
        this.current = clamp(this.current * 0.5, this.floor, this.ceiling);
        return { change: 'hold', rate: this.current };
      }
      // A window is short; the accepted rate over the last second is the steadier measure of the limit.
      // Before a whole second of answers (or when it shows more than the rate: the service's burst) halve instead.
      const accepted = this.recent.rate(now);
      const answered = this.answered.rate(now);
      let target: number;
      this.probesPast = 0;
      const stalled = w.limited && accepted !== undefined && answered !== undefined &&
        answered < this.current * SENT_AT_RATE && answered - accepted < answered * 0.2;
      if (stalled) {
        // The rate binds now, yet over the last second far less went than it allowed and little of it was refused:
        // the client stalled, and what was accepted measures the client, not the service. The 429s came from the
        // burst after the lull: a mild cut.
        target = this.current * 0.85;
      } else if (accepted !== undefined) {
        // More accepted over the last second than in this window or the rate now: that was at a higher rate, before a decrease.
        const inWindow = elapsedMs >= this.minWindowMs ? rates.accepted : Number.POSITIVE_INFINITY;
        const measured = Math.max(Math.min(accepted, inWindow, this.current), this.floor);
        target = measured * BELOW_LIMIT;
        // A limit far below the last one is more often a busy machine (client or service stalled) than a service
        // that cut its limit: remember at most 10 % less, so that the climb back is quick. A limit that really
        // fell is found again at the next congestion, 10 % lower each time.
        // (Only a limit measured over a second is remembered so: the slow start's estimate may be far off.)
        this.confirmed = this.limitMeasured && Math.abs(measured / this.limit - 1) <= SAME_LIMIT ? this.confirmed + 1 : 0;
        this.limit = this.limitMeasured ? Math.max(measured, Math.min(this.limit, this.current) * 0.9) : measured;
        this.limitMeasured = true;
        // Only a decrease to a measured limit is a fair test of whether the 429s come from the rate.
        this.beforeCut = rates;
      } else {
        // Not a whole second of answers yet: halve, but not below what this window saw accepted, if it lasted.
        // The limit is then taken to be just above the new rate: the climb back probes gently from there (and speeds
        // up past it), instead of leaping back towards a limit that just proved too high.
        const lasted = elapsedMs >= 100;
        target = Math.max(this.current * 0.5, lasted ? rates.accepted * BELOW_LIMIT : 0);
        this.limit = Math.max(target / BELOW_LIMIT, this.floor);
        this.limitMeasured = false;
        this.confirmed = 0;
      }
      this.current = clamp(Math.max(target, this.current * 0.25), this.floor, this.ceiling);
      return { change: 'decrease', rate: this.current };
    }
    this.acceptedNothing = false;
    // The usual share only rises by the test after a decrease (or from the slow start); here it can only fall,
    // so that an overshoot never teaches the controller to take its own 429s for the service's habit (a limit
    // found too high would otherwise teach it exactly that).
    this.usualShare = this.usualShare * 0.9 + Math.min(share, this.usualShare) * 0.1;
    const highest = this.highest();
    if (!w.limited || this.current >= highest) return { change: 'none' };
    this.current = clamp(this.current + Math.max(this.step(), 0.1), this.floor, highest);
    return { change: 'increase', rate: this.current };
  }

  /**
   * The 429 share above which a window of `answers` is congested: the usual
   * share plus three standard deviations of its sampling noise plus a margin,
   * so that a service refusing 10 % at random does not read as congested
   * every few windows (each false decrease would ratchet the rate down).
   */
  private congestedAbove(answers: number): number {
    const p = this.usualShare;
    return p + 3 * Math.sqrt((p * (1 - p)) / answers) + MARGIN;
  }

  /**
   * How much to raise the rate after a window without congestion: a quarter
   * while far below the last limit found (but not past it in one step); 1 %
   * of that limit per window close to it, so that the service's bucket
   * refills between probes and a probe past the limit costs one or two 429s,
   * and half as much for each time in a row the probe found the same limit
   * again (down to a quarter): a limit that holds still is probed less often,
   * since each probe's 429s are its cost; once past it, 1 % more with every
   * window in a row (1 %, 2 %, 3 % …, at most 10 %): the limit may have
   * grown, or was measured low.
   */
  private step(): number {
    // Far below: a quarter, but in one step no further than just below the limit (not past it).
    if (this.current < this.limit * 0.9) return Math.min(this.current / 4, this.limit * BELOW_LIMIT - this.current);
    // The slow start's estimate comes from the few answers that ended it, to requests sent while the rate was still
    // ramping up, and against long round trips it is often far low: climbing 1 %, 2 %, 3 % … from it left the service
    // underused for seconds. Until a first congestion measures the limit, the probe goes 10 % a window.
    if (this.limitFromSlowStart) return this.current * 0.1;
    // A confirmed limit is known to within the spread of its measurements (± SAME_LIMIT): only past that is the probe past it.
    const near = this.limit * (1 + (this.confirmed > 0 ? 2 : 1) * SAME_LIMIT);
    if (this.current < near) return (this.limit * 0.01) / 2 ** Math.min(this.confirmed, MAX_CONFIRMED);
    this.confirmed = 0;
    this.probesPast++;
    return this.current * Math.min(0.1, 0.01 * this.probesPast);
  }
}

/** Accepted answers per second over the last second (or since the start, when shorter). */
class RecentCount {
  private readonly times: number[] = [];
  private head = 0;

  /** From the first answer on: the time before it (setup, reading) says nothing about the service. */
  private start: number | undefined;

  /** Measure from `at` on (a pause in sending is not a low rate). */
  restart(at: number): void {
    this.start = at;
  }

  add(now: number): void {
    this.start ??= now;
    this.times.push(now);
    this.trim(now);
  }

  /** Undefined until a whole horizon of answers has been seen. */
  rate(now: number): number | undefined {
    this.trim(now);
    if (this.start === undefined || now - this.start < HORIZON_MS) return undefined;
    const span = HORIZON_MS;
    // Only answers since the (re)start count.
    while (this.head < this.times.length && this.times[this.head]! < this.start) this.head++;
    return ((this.times.length - this.head) * 1000) / span;
  }

  private trim(now: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= now - HORIZON_MS) this.head++;
    if (this.head > 4096) {
      this.times.splice(0, this.head);
      this.head = 0;
    }
  }
}

interface WindowRates {
  /** Answers per second (what was sent, in effect). */
  answers: number;
  /** Answers other than 429 per second. */
  accepted: number;
  share: number;
}

function windowRates(w: { accepted: number; throttled: number }, elapsedMs: number): WindowRates {
  const total = w.accepted + w.throttled;
  return { answers: (total * 1000) / elapsedMs, accepted: (w.accepted * 1000) / elapsedMs, share: w.throttled / total };
}

/**
 * After a decrease, did the 429s stay while what the service accepted fell
 * with what was sent? Then they do not come from the rate: a rate limit keeps
 * accepting its limit however much less is sent. (When less was not sent,
 * the rate did not bind and nothing can be told.)
 */
function unrelatedToRate(before: WindowRates, after: WindowRates): boolean {
  const sent = after.answers / before.answers;
  // Only a clear drop in what was sent can tell the two apart.
  if (sent > 0.9 || after.share < before.share * 0.7) return false;
  // Fell with what was sent (a fixed share refused), rather than holding at the limit?
  const accepted = after.accepted / Math.max(before.accepted, 1e-9);
  return Math.abs(accepted / sent - 1) < (1 - sent) / 2;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
