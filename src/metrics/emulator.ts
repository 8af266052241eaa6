/**
 * The emulator's side of the wire (`ferry emulator` serves it on /metrics):
 * requests answered by endpoint and status, with their handling time, and the
 * process's own metrics. A run's client-side request count can be checked
 * against it.
 */
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { observeByEndpoint } from './bound.js';
import type { ObserveRequest } from './bound.js';
import { LATENCY_BUCKETS } from './registry.js';

/** Fits the emulator's `EmulatorMetrics` option by shape (metrics stay below the emulator). */
export class EmulatorRequestMetrics {
  readonly registry = new Registry();
  readonly #observe: ObserveRequest;

  constructor(options: { processMetrics?: boolean } = {}) {
    const duration = new Histogram({
      name: 'ferry_emulator_request_duration_seconds',
      help: 'Requests the emulator answered, by endpoint and status, with the time taken to answer.',
      labelNames: ['endpoint', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.#observe = observeByEndpoint(duration);
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'ferry_emulator_' });
  }

  observeRequest(endpoint: string, status: number, durationMs: number): void {
    this.#observe(endpoint, status, durationMs / 1000);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
