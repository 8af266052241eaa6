/**
 * Request-level metrics from the HTTP client's {@link ClientObserver} hook:
 * latency by endpoint and status, 429 answers, and the client's own retries.
 * Label children are bound once and reused.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { ClientObserver } from '../api/client.js';
import { observeByEndpoint } from './bound.js';

export interface RequestMetrics {
  duration: Histogram<'endpoint' | 'status'>;
  throttled: Counter<'endpoint'>;
  retries: Counter<'endpoint'>;
  /** The outage breaker: 0 closed, 1 half-open, 2 open. */
  breakerState: Gauge;
  breakerOpened: Counter;
}

const BREAKER_STATES = { closed: 0, 'half-open': 1, open: 2 } as const;

type Inc = () => void;

export function requestObserver(metrics: RequestMetrics): ClientObserver {
  const observe = observeByEndpoint(metrics.duration);
  const throttled = new Map<string, Inc>();
  const retries = new Map<string, Inc>();
  let lastState: number = BREAKER_STATES.closed;

  const counterOf = (cache: Map<string, Inc>, counter: Counter<'endpoint'>, endpoint: string): Inc => {
    let inc = cache.get(endpoint);
    if (!inc) {
      const child = counter.labels(endpoint);
      inc = () => child.inc();
      cache.set(endpoint, inc);
    }
    return inc;
  };

  return {
    onResponse({ endpoint, status, durationMs }) {
      observe(endpoint, status, durationMs / 1000);
      if (status === 429) counterOf(throttled, metrics.throttled, endpoint)();
    },
    onRetry({ endpoint }) {
      counterOf(retries, metrics.retries, endpoint)();
    },
    onBreaker({ state }) {
      const value = BREAKER_STATES[state];
      if (state === 'open' && lastState === 0) metrics.breakerOpened.inc();
      lastState = value;
      metrics.breakerState.set(value);
    },
  };
}
