/**
 * The emulator's side of the wire (`ferry emulator` serves it on /metrics):
 * requests answered by endpoint and status, with their handling time, and the
 * process's own metrics. A run's client-side request count can be checked
 * against it.
 */
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EmulatorMetrics } from '../emulator/options.js';
import { LATENCY_BUCKETS } from './registry.js';

export class EmulatorRequestMetrics implements EmulatorMetrics {
  readonly registry = new Registry();
  readonly #duration: Histogram<'endpoint' | 'status'>;
  /** Bound children per endpoint and status: a request costs two Map lookups. */
  readonly #children = new Map<string, Map<number, (seconds: number) => void>>();

  constructor(options: { processMetrics?: boolean } = {}) {
    this.#duration = new Histogram({
      name: 'ferry_emulator_request_duration_seconds',
      help: 'Requests the emulator answered, by endpoint and status, with the time taken to answer.',
      labelNames: ['endpoint', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'ferry_emulator_' });
  }

  observeRequest(endpoint: string, status: number, durationMs: number): void {
    let byStatus = this.#children.get(endpoint);
    if (!byStatus) this.#children.set(endpoint, (byStatus = new Map()));
    let observe = byStatus.get(status);
    if (!observe) {
      const child = this.#duration.labels(endpoint, String(status));
      observe = (seconds) => child.observe(seconds);
      byStatus.set(status, observe);
    }
    observe(durationMs / 1000);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
