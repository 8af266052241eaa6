/**
 * The one place metrics read the pusher. The sink's pusher and rate limiter are
 * being rewritten; when its stats accessor changes, only this function moves.
 */
import type { ConcurrencyReason, Pusher, RateReason } from '../sink/index.js';

/** What metrics need from a pusher, at scrape time. */
export interface PushGauges {
  /** The adaptive rate limit now, requests per second. */
  ratePerSecond: number;
  /** Records being pushed (a request out, or waiting to retry). */
  inFlight: number;
  /** Records waiting for a push slot. */
  queued: number;
  /** Push attempts repeated after a transient failure (the sink's own retry loop). */
  retries: number;
  /** The adaptive concurrency limit now, and why neither limit is higher. */
  concurrency: number;
  concurrencyReason: ConcurrencyReason;
  rateReason: RateReason;
}

/** Every reason a gauge may name, so that the one no longer current is set back to 0. */
export const CONCURRENCY_REASONS: readonly ConcurrencyReason[] = ['growing', 'latency', 'throttled', 'overloaded', 'saturated', 'bound', 'client'];
export const RATE_REASONS: readonly RateReason[] = ['throttled', 'bound', 'unlimited'];

export function readPushGauges(pusher: Pusher): PushGauges {
  const stats = pusher.stats();
  return {
    ratePerSecond: stats.currentRate,
    inFlight: stats.inFlight,
    queued: stats.queued,
    retries: stats.retries,
    concurrency: stats.concurrency,
    concurrencyReason: stats.concurrencyReason,
    rateReason: stats.rateReason,
  };
}
