/**
 * prom-client hashes the label values on every `labels()` call; a request
 * histogram instead binds each (endpoint, status) child once and reuses it,
 * so an observation costs two Map lookups and the observe itself.
 */
import type { Histogram } from 'prom-client';

export type ObserveRequest = (endpoint: string, status: number, seconds: number) => void;

export function observeByEndpoint(histogram: Histogram<'endpoint' | 'status'>): ObserveRequest {
  const children = new Map<string, Map<number, (seconds: number) => void>>();
  return (endpoint, status, seconds) => {
    let byStatus = children.get(endpoint);
    if (!byStatus) children.set(endpoint, (byStatus = new Map<number, (seconds: number) => void>()));
    let observe = byStatus.get(status);
    if (!observe) {
      const child = histogram.labels(endpoint, String(status));
      observe = (value) => child.observe(value);
      byStatus.set(status, observe);
    }
    observe(seconds);
  };
}
