/**
 * Request-level metrics from the HTTP client's {@link ClientObserver} hook:
 * latency by endpoint and status, 429 answers, and the client's own retries.
 * Label children are bound once per (endpoint, status) and reused, so a
 * request costs two Map lookups and an observe.
 */
import type { Counter, Histogram } from 'prom-client';
import type { ClientObserver } from '../api/client.js';

export interface RequestMetrics {
  duration: Histogram<'endpoint' | 'status'>;
  throttled: Counter<'endpoint'>;
  retries: Counter<'endpoint'>;
}

type Observe = (seconds: number) => void;
type Inc = () => void;

export function requestObserver(metrics: RequestMetrics): ClientObserver {
  const durations = new Map<string, Map<number, Observe>>();
  const throttled = new Map<string, Inc>();
  const retries = new Map<string, Inc>();

  const durationOf = (endpoint: string, status: number): Observe => {
    let byStatus = durations.get(endpoint);
    if (!byStatus) durations.set(endpoint, (byStatus = new Map()));
    let observe = byStatus.get(status);
    if (!observe) {
      const child = metrics.duration.labels(endpoint, String(status));
      observe = (seconds) => child.observe(seconds);
      byStatus.set(status, observe);
    }
    return observe;
  };
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
      durationOf(endpoint, status)(durationMs / 1000);
      if (status === 429) counterOf(throttled, metrics.throttled, endpoint)();
    },
    onRetry({ endpoint }) {
      counterOf(retries, metrics.retries, endpoint)();
    },
  };
}
