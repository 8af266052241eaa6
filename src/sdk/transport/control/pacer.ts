/**
 * Spreads requests over the round trip instead of sending them in trains.
 *
 * With every slot taken and a service that answers after a fixed delay, the
 * requests that went out together come back together: each answer then waits
 * for the ones ahead of it to be handled (by the service when they arrive, by
 * ferry when they come back), and that wait is added to every request's
 * cycle (what it costs is in docs/performance.md).
 *
 * The pacer lets requests go no faster than `GAIN` × slots ÷ the shortest
 * round trip seen, with bursts up to `BURST_MS` of that: a rate the slots
 * can never reach in steady state (no request answers faster than the
 * shortest round trip), so it only ever delays a request that is ahead of an
 * even spread. Against a fast service (round trips of a few milliseconds)
 * the burst covers the whole round trip and nothing waits.
 */

/** Paced rate ÷ the most the slots allow at the shortest round trip: above 1, so pacing never binds in steady state. */
const GAIN = 1.25;
/** Requests ahead of an even spread by less than this go at once (timers fire to the millisecond anyway). */
const BURST_MS = 2;

export class Pacer {
  private shortestRoundTrip = Number.POSITIVE_INFINITY;
  /** When the next request is due on an even spread. */
  private dueAt = Number.NEGATIVE_INFINITY;

  constructor(private slots: number) {}

  /** The requests in flight at most now (the adaptive concurrency limit moved). */
  setSlots(slots: number): void {
    this.slots = Math.max(1, slots);
  }

  /** A request that went at `sentAt` was answered at `now`. */
  onRoundTrip(sentAt: number, now: number): void {
    const roundTrip = now - sentAt;
    if (roundTrip < this.shortestRoundTrip) this.shortestRoundTrip = roundTrip;
  }

  /** Milliseconds a request about to go at `now` should wait (0: go now); counts it as sent at its turn. */
  delay(now: number): number {
    const interval = this.shortestRoundTrip / (this.slots * GAIN);
    // No round trip seen yet (Infinity), or one so short that the burst covers it.
    if (!(interval * this.slots > BURST_MS) || interval === Number.POSITIVE_INFINITY) return 0;
    const turn = Math.max(this.dueAt, now - BURST_MS);
    this.dueAt = turn + interval;
    return turn > now ? turn - now : 0;
  }
}
