/**
 * A circuit breaker for outages, shared by every request to one service or
 * API. Each request backing off on its own keeps the run as a whole at full
 * rate while the service is down (16,271 requests in a 20 s outage before it
 * existed): the breaker turns "many requests failing in a row" into "the
 * service is down", and then lets one probe through at a time, with capped
 * exponential backoff between probes, until one is answered. Then every
 * waiting request goes at once: the run is back to full concurrency the
 * moment a probe succeeds, not after a slow climb.
 *
 * States: `closed` (requests go), `open` (requests wait; the next probe is
 * due at `probeAt`), `half-open` (one probe is out; the others wait for its
 * answer). Only answers that say the service is down count against it — a
 * 5xx, or no answer at all (refused, reset, timed out); a 4xx or a 429 is an
 * answer from a service that is up and closes it.
 */
import { onAbort } from '../abort-listeners.js';
import type { Clock } from '../clock.js';
import { monotonicClock } from '../clock.js';
import { abortedError } from '../http-retry.js';

/** Where the breaker stands. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** How soon the breaker opens and how it probes. */
export interface BreakerOptions {
  /** Outage failures in a row (no answer from a service that is up in between) that open it. @default 8 */
  failureThreshold?: number;
  /** Wait before the first probe, in milliseconds. @default 100 */
  probeBaseMs?: number;
  /**
   * Longest wait between probes, in milliseconds: a service back up is noticed
   * within about this long. @default 1000
   */
  probeMaxMs?: number;
  /** Monotonic time. @default performance.now */
  clock?: Clock;
  /** Told of every change of state (metrics, logs). Must not throw. */
  onStateChange?: (state: BreakerState, info: { consecutiveFailures: number; openForMs: number }) => void;
}

/**
 * What a request got from {@link CircuitBreaker.enter}: pass it back to
 * {@link CircuitBreaker.leave}. `probe`: this request is the one probe.
 */
export interface BreakerTicket {
  readonly probe: boolean;
}

/** The outcome of one attempt, as the breaker reads it. */
export type BreakerVerdict = 'up' | 'down' | 'unsent';

/** A snapshot for metrics and tests. */
export interface BreakerStats {
  state: BreakerState;
  /** Times it opened. */
  opened: number;
  /** Probes sent. */
  probes: number;
  consecutiveFailures: number;
}

const ROAD: BreakerTicket = Object.freeze({ probe: false });
const PROBE: BreakerTicket = Object.freeze({ probe: true });

interface Waiter {
  resolve: (ticket: BreakerTicket) => void;
  stopListening: (() => void) | undefined;
  gone: boolean;
}

/** See the module comment. One instance per service or API, shared by all its requests. */
export class CircuitBreaker {
  private readonly threshold: number;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly clock: Clock;
  private readonly onStateChange: BreakerOptions['onStateChange'];
  private current: BreakerState = 'closed';
  private failures = 0;
  /** Probes that failed since it opened: the next wait doubles with each. */
  private failedProbes = 0;
  private openedAt = 0;
  /** When a request was last answered by a service that is up. */
  private lastUpAt: number;
  private probeAt = 0;
  private readonly waiters: Waiter[] = [];
  private timer: AbortController | undefined;
  private counts = { opened: 0, probes: 0 };

  constructor(options: BreakerOptions = {}) {
    this.threshold = Math.max(1, options.failureThreshold ?? 8);
    this.baseMs = Math.max(0, options.probeBaseMs ?? 100);
    this.maxMs = Math.max(this.baseMs, options.probeMaxMs ?? 1000);
    this.clock = options.clock ?? monotonicClock;
    this.onStateChange = options.onStateChange;
    this.lastUpAt = this.clock.now();
  }

  /**
   * While open or half-open, how long the service has answered nothing but
   * outage failures (what the outage budget is measured against); undefined
   * while closed.
   */
  downForMs(): number | undefined {
    return this.current === 'closed' ? undefined : this.clock.now() - this.lastUpAt;
  }

  /** Where it stands now. */
  get state(): BreakerState {
    return this.current;
  }

  /** Counters for metrics. */
  stats(): BreakerStats {
    return { state: this.current, ...this.counts, consecutiveFailures: this.failures };
  }

  /**
   * May a request go? While closed, a ticket at once (no promise: the hot
   * path). While open or half-open, a promise of a ticket, resolved when this
   * request is the next probe or a probe succeeded; rejected with FERRY_ABORTED
   * when `signal` fires.
   */
  enter(signal?: AbortSignal): BreakerTicket | Promise<BreakerTicket> {
    if (this.current === 'closed') return ROAD;
    if (signal?.aborted) return Promise.reject(abortedError(signal, 'waiting for the service to recover'));
    if (this.current === 'open' && this.waiters.length === 0 && this.clock.now() >= this.probeAt) return this.startProbe();
    return new Promise<BreakerTicket>((resolve, reject) => {
      const waiter: Waiter = { resolve, stopListening: undefined, gone: false };
      if (signal) {
        waiter.stopListening = onAbort(signal, () => {
          waiter.gone = true;
          reject(abortedError(signal, 'waiting for the service to recover'));
        });
      }
      this.waiters.push(waiter);
      this.schedule();
    });
  }

  /**
   * What the attempt that held `ticket` came to: `up` (any answer that is not
   * a 5xx), `down` (a 5xx, or no answer), `unsent` (it never went: aborted,
   * refused before sending).
   */
  leave(ticket: BreakerTicket, verdict: BreakerVerdict): void {
    if (verdict === 'up') {
      this.failures = 0;
      this.lastUpAt = this.clock.now();
      if (this.current !== 'closed') this.close();
      return;
    }
    if (verdict === 'unsent') {
      if (ticket.probe && this.current === 'half-open') this.reopen(false);
      return;
    }
    this.failures++;
    if (ticket.probe) {
      if (this.current === 'half-open') this.reopen(true);
      return;
    }
    if (this.current === 'closed' && this.failures >= this.threshold) {
      this.counts.opened++;
      this.openedAt = this.clock.now();
      this.failedProbes = 0;
      this.current = 'open';
      this.probeAt = this.openedAt + this.baseMs;
      this.report();
    }
  }

  private startProbe(): BreakerTicket {
    this.current = 'half-open';
    this.counts.probes++;
    this.report();
    return PROBE;
  }

  /** A probe failed (`failed`) or never went: wait longer (capped), then probe again. */
  private reopen(failed: boolean): void {
    if (failed) this.failedProbes++;
    this.current = 'open';
    const wait = failed ? Math.min(this.maxMs, this.baseMs * 2 ** this.failedProbes) : 0;
    this.probeAt = this.clock.now() + wait;
    this.report();
    this.schedule();
  }

  private close(): void {
    this.current = 'closed';
    this.failedProbes = 0;
    this.timer?.abort();
    this.timer = undefined;
    this.report();
    const waiting = this.waiters.splice(0);
    for (const waiter of waiting) {
      if (waiter.gone) continue;
      waiter.stopListening?.();
      waiter.resolve(ROAD);
    }
  }

  /** Set the timer for the next probe, when someone waits for it and none is set. */
  private schedule(): void {
    if (this.current !== 'open' || this.timer !== undefined || this.waiters.length === 0) return;
    const timer = new AbortController();
    this.timer = timer;
    this.clock.sleep(Math.max(0, this.probeAt - this.clock.now()), timer.signal).then(
      () => {
        if (this.timer !== timer) return;
        this.timer = undefined;
        this.releaseProbe();
      },
      () => undefined, // cancelled: the breaker closed
    );
  }

  /** The first waiter still there goes as the probe. */
  private releaseProbe(): void {
    if (this.current !== 'open') return;
    while (this.waiters.length > 0) {
      const waiter = this.waiters.shift()!;
      if (waiter.gone) continue;
      waiter.stopListening?.();
      waiter.resolve(this.startProbe());
      return;
    }
  }

  private report(): void {
    this.onStateChange?.(this.current, { consecutiveFailures: this.failures, openForMs: this.current === 'closed' ? 0 : this.clock.now() - this.openedAt });
  }
}
