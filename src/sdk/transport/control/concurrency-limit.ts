/**
 * Finds how many requests to keep in flight, from the round trips the
 * service answers with (docs/sink.md, "Adaptive concurrency", has the
 * reasoning and the figures). A pure module: answers and their times go in,
 * a limit comes out; the caller's clock, not this one's, says what time it is.
 *
 * The model is a service with a parallel capacity: up to that many requests
 * in flight, each one's round trip is the service's no-load latency; past it,
 * requests wait in the service's queue and the round trip grows with the
 * excess (Little's law), while throughput stays flat. So:
 *
 * - The **no-load round trip** is the shortest one seen (429s and 503s aside:
 *   a refusal is answered without the work). It may rise: when for a long
 *   spell no round trip came close to it, the service got slower, and the
 *   shortest of that spell takes its place.
 * - **Slow start**: from `initial`, every answer within the no-load round trip
 *   plus a tolerance adds one (the limit doubles every round trip), while the
 *   limit binds (at least half of it is in flight: a client that sends less
 *   learns nothing from more room). It ends at the first round whose round
 *   trips rose past the tolerance, at a 429 or 503, or when four rounds at a
 *   binding limit that doubled brought no more throughput (a service, or a
 *   client, that is already saturated: more in flight would only queue).
 * - Then, once per **round** (answers over at least one round trip), the
 *   gradient of TCP Vegas and Netflix's gradient limiters: the limit times
 *   (no-load round trip + tolerance) ÷ the round's mean round trip, plus a
 *   small queue allowance (√limit) so that it keeps probing, and smoothed
 *   (a fifth of the way per round). Past the capacity the round trip grows
 *   in proportion to the excess, so the limit settles a little above the
 *   capacity: enough that the service never idles, few requests waiting.
 * - A **503** (the service says it is overloaded) cuts the limit by a tenth,
 *   once per round. A **429** is the rate's business (the rate controller
 *   finds and holds that); the limit only stops growing, and comes down to
 *   what the rate needs (the most in flight of the round, with room to spare),
 *   so that it tells the truth about why it is not higher.
 * - The tolerance is half the no-load round trip (as Netflix's gradient limiter's 1.5), but at least
 *   {@link SLACK_MS}: on one machine with the service (a round trip under a
 *   millisecond) the event loop's own jitter is larger than the latency, and
 *   reading it as queueing would starve a fast run.
 */

/** Why the limit is not higher, for the summary and the progress line. */
export type ConcurrencyReason =
  /** Still growing: the service has shown no limit yet. */
  | 'growing'
  /** Round trips rose above the no-load one: the service queues past this. */
  | 'latency'
  /** 429s: the rate, not the concurrency, is what the service limits. */
  | 'throttled'
  /** 503s: the service said it is overloaded. */
  | 'overloaded'
  /** Throughput stopped growing with the limit (the client, or the service, is saturated). */
  | 'saturated'
  /** The configured bound (`service.concurrency`) or the cap. */
  | 'bound'
  /** Less was sent than the limit allows: the source, not the service, set the pace. */
  | 'client';

export interface ConcurrencyLimitOptions {
  /** The most the limit may reach: `service.concurrency` when set, else the cap. */
  max: number;
  /** Where it starts. @default min(16, max) */
  initial?: number;
  /** The least latency may bring it to (503s may go lower, to 1). @default 4 (or `max`, when lower) */
  min?: number;
}

/** The cap when `service.concurrency` is not set. */
export const CONCURRENCY_CAP = 256;
/** Where the limit starts without a value learnt before: a round trip or two from the cap, without a burst. */
export const INITIAL_CONCURRENCY = 32;
/** The least tolerance above the no-load round trip, ms (see the module's comment). */
const SLACK_MS = 3;
/** The tolerance, as a share of the no-load round trip. */
const TOLERANCE = 0.5;
/** A round lasts at least this long, ms, and has at least {@link ROUND_ANSWERS} answers. */
const MIN_ROUND_MS = 20;
const ROUND_ANSWERS = 8;
/** How far towards the gradient's new limit one round moves it. */
const SMOOTHING = 0.2;
/** After this long without a round trip near the no-load one, that one is out of date (the service got slower). */
const NO_LOAD_MEMORY_MS = 30_000;
/** Slow start ends when throughput has not grown by this factor over {@link FLAT_ROUNDS} binding rounds. */
const GROWTH = 1.25;
const FLAT_ROUNDS = 4;
/**
 * Latency alone brings the limit no lower than this: where the service runs
 * on the same machine (the embedded emulator shares ferry's event loop) every
 * round trip grows with what is in flight whatever the service's capacity, and
 * a serial service is still within four times its capacity.
 */
const LEAST_FOR_LATENCY = 4;
/** A 503 round takes a tenth off. */
const OVERLOAD_CUT = 0.9;

interface Round {
  start: number;
  answers: number;
  rttSum: number;
  /** Most requests in flight when one of its requests went. */
  peakInFlight: number;
  throttled: number;
  overloaded: number;
}

export class ConcurrencyLimit {
  private readonly max: number;
  private readonly min: number;
  private value: number;
  private slowStart = true;
  private noLoadMs = Number.POSITIVE_INFINITY;
  /** The shortest round trip since {@link spellStart}, and when a round trip last came within the tolerance of the no-load one. */
  private spellShortest = Number.POSITIVE_INFINITY;
  private nearNoLoadAt = Number.NEGATIVE_INFINITY;
  private round: Round;
  private best = { throughput: 0, flatRounds: 0 };
  private why: ConcurrencyReason = 'growing';

  constructor(options: ConcurrencyLimitOptions, now: number) {
    this.max = Math.max(1, Math.floor(options.max));
    this.min = Math.min(this.max, Math.max(1, options.min ?? LEAST_FOR_LATENCY));
    this.value = clamp(options.initial ?? INITIAL_CONCURRENCY, this.min, this.max);
    if (this.value >= this.max) this.why = 'bound';
    this.round = emptyRound(now);
  }

  /** Requests that may be in flight now (whole). */
  get limit(): number {
    return Math.floor(this.value);
  }

  /** Why it is not higher. */
  get reason(): ConcurrencyReason {
    return this.value >= this.max ? 'bound' : this.why;
  }

  /** The no-load round trip as found so far, ms (undefined before the first answer). */
  get noLoadRoundTripMs(): number | undefined {
    return Number.isFinite(this.noLoadMs) ? this.noLoadMs : undefined;
  }

  get inSlowStart(): boolean {
    return this.slowStart;
  }

  /**
   * One answer. `status` the HTTP status (null for a network error, and a
   * 5xx other than 503: neither says anything about the service's capacity,
   * an outage is the retry policy's business); `roundTripMs` how long it
   * took; `inFlight` how many requests were in flight when it went (itself
   * included). Returns the limit now.
   */
  onAnswer(answer: { status: number | null; roundTripMs: number; inFlight: number }, now: number): number {
    const round = this.round;
    round.peakInFlight = Math.max(round.peakInFlight, answer.inFlight);
    if (answer.status === 429) round.throttled++;
    else if (answer.status === 503) round.overloaded++;
    else if (answer.status !== null && answer.status < 500) {
      round.answers++;
      round.rttSum += answer.roundTripMs;
      this.noteRoundTrip(answer.roundTripMs, now);
      if (this.slowStart && answer.inFlight * 2 >= this.value && answer.roundTripMs <= this.threshold()) {
        this.value = Math.min(this.max, this.value + 1);
      }
    }
    if (this.slowStart && (round.throttled > 0 || round.overloaded > 0)) this.endRound(now);
    else if (now - round.start >= Math.max(MIN_ROUND_MS, this.noLoadMs) && round.answers + round.throttled + round.overloaded >= ROUND_ANSWERS) this.endRound(now);
    return this.limit;
  }

  /** The round trip under which the service is taken not to queue. */
  private threshold(): number {
    if (!Number.isFinite(this.noLoadMs)) return Number.POSITIVE_INFINITY;
    return this.noLoadMs + Math.max(SLACK_MS, this.noLoadMs * TOLERANCE);
  }

  private noteRoundTrip(ms: number, now: number): void {
    if (ms < this.noLoadMs) this.noLoadMs = ms;
    if (ms <= this.threshold()) {
      this.nearNoLoadAt = now;
      this.spellShortest = Number.POSITIVE_INFINITY;
      return;
    }
    this.spellShortest = Math.min(this.spellShortest, ms);
    // Nothing near the no-load round trip for a long spell (and the limit kept low meanwhile): the service got slower.
    if (now - this.nearNoLoadAt > NO_LOAD_MEMORY_MS && Number.isFinite(this.nearNoLoadAt)) {
      this.noLoadMs = this.spellShortest;
      this.nearNoLoadAt = now;
      this.spellShortest = Number.POSITIVE_INFINITY;
    }
    if (!Number.isFinite(this.nearNoLoadAt)) this.nearNoLoadAt = now;
  }

  private endRound(now: number): void {
    const round = this.round;
    this.round = emptyRound(now);
    const elapsed = Math.max(1, now - round.start);
    const binding = round.peakInFlight * 2 >= this.value;
    if (round.overloaded > 0) {
      this.slowStart = false;
      this.why = 'overloaded';
      this.value = clamp(this.value * OVERLOAD_CUT, 1, this.max);
      return;
    }
    if (round.throttled > 0) {
      // The rate limits: keep what the rate needs (the round's most in flight) with room for it to grow.
      this.slowStart = false;
      this.why = 'throttled';
      this.value = clamp(Math.min(this.value, round.peakInFlight * 1.5 + 2), this.min, this.max);
      return;
    }
    if (round.answers === 0) return;
    const meanRtt = round.rttSum / round.answers;
    const gradient = Math.min(1, this.threshold() / meanRtt);
    if (this.slowStart) {
      if (gradient < 1) {
        // Round trips rose: past the capacity. Straight to the gradient's limit, unsmoothed: the overshoot is queueing now.
        this.slowStart = false;
        this.why = 'latency';
        this.value = clamp(this.value * gradient + Math.sqrt(this.value), this.min, this.max);
        return;
      }
      if (!binding) {
        this.why = 'client';
        return;
      }
      const throughput = (round.answers * 1000) / elapsed;
      if (throughput >= this.best.throughput * GROWTH) this.best = { throughput, flatRounds: 0 };
      else if (++this.best.flatRounds >= FLAT_ROUNDS) {
        this.slowStart = false;
        this.why = 'saturated';
      }
      return;
    }
    if (gradient >= 1 && !binding) {
      this.why = 'client';
      return;
    }
    const target = this.value * gradient + Math.sqrt(this.value);
    this.value = clamp(this.value + (target - this.value) * SMOOTHING, this.min, this.max);
    if (gradient < 1) this.why = 'latency';
    else if (this.why !== 'saturated') this.why = 'growing';
  }
}

function emptyRound(start: number): Round {
  return { start, answers: 0, rttSum: 0, peakInFlight: 0, throttled: 0, overloaded: 0 };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
