/**
 * ferry's metrics for one process: a registry of its own (nothing is
 * registered globally at import), the metric definitions, and the per-sync
 * run metrics. Names are documented in docs/metrics.md.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ClientObserver } from '../api/client.js';
import { requestObserver } from './client-observer.js';
import type { RequestMetrics } from './client-observer.js';
import { SyncMetrics } from './sync-metrics.js';
import type { RunMetrics } from './sync-metrics.js';

/** Request latency buckets, seconds: from a loopback answer to a long write under load. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface FerryMetricsOptions {
  /** Also export Node's process metrics (CPU, memory, event loop): for long-running processes. */
  processMetrics?: boolean;
}

export class FerryMetrics {
  readonly registry = new Registry();
  readonly #syncs = new Map<string, SyncMetrics>();
  readonly #request: RequestMetrics;
  readonly #run: RunMetrics;
  #observer: ClientObserver | undefined;

  constructor(options: FerryMetricsOptions = {}) {
    const registers = [this.registry];
    const each = (publish: (sync: SyncMetrics) => void) => () => {
      for (const sync of this.#syncs.values()) publish(sync);
    };
    this.#request = {
      duration: new Histogram({
        name: 'ferry_http_request_duration_seconds',
        help: 'Time from sending a request to the service to its complete answer, per attempt.',
        labelNames: ['endpoint', 'status'] as const,
        buckets: LATENCY_BUCKETS,
        registers,
      }),
      throttled: new Counter({ name: 'ferry_http_throttled_total', help: 'HTTP 429 answers from the service.', labelNames: ['endpoint'] as const, registers }),
      breakerState: new Gauge({
        name: 'ferry_http_circuit_state',
        help: "The service's outage circuit breaker: 0 closed (requests go), 1 half-open (one probe out), 2 open (requests wait for the next probe).",
        registers,
      }),
      breakerOpened: new Counter({ name: 'ferry_http_circuit_opened_total', help: 'Times the outage circuit breaker opened (the service failed every request in a row).', registers }),
      retries: new Counter({
        name: 'ferry_http_retries_total',
        help: "Requests the HTTP client's own retry loop repeated (reads and setup calls; pushes retry in the sink).",
        labelNames: ['endpoint'] as const,
        registers,
      }),
    };
    this.#run = {
      records: new Counter({
        name: 'ferry_records_total',
        help: 'Records by outcome: read, created, updated, unchanged, skipped, failed (dead-lettered), deleted.',
        labelNames: ['sync', 'outcome'] as const,
        registers,
        collect: each((sync) => sync.publishRecords()),
      }),
      pushRetries: new Counter({
        name: 'ferry_push_retries_total',
        help: 'Push attempts the sink repeated after a transient failure (429, 5xx, network).',
        labelNames: ['sync'] as const,
        registers,
        collect: each((sync) => sync.publishPushGauges()),
      }),
      sourceLagBytes: new Gauge({ name: 'ferry_source_lag_bytes', help: "What a change source holds back for ferry: a replication slot's WAL behind the confirmed position.", labelNames: ['sync'] as const, registers }),
      sourceLagSeconds: new Gauge({ name: 'ferry_source_lag_seconds', help: 'Age of the oldest change a change source handed over and ferry has not yet confirmed (0 when caught up).', labelNames: ['sync'] as const, registers }),
      sourceLagWarning: new Gauge({ name: 'ferry_source_lag_warning', help: "1 while a change source's lag is above its warning threshold (postgres-cdc: lagWarnBytes).", labelNames: ['sync'] as const, registers }),
      rate: new Gauge({ name: 'ferry_push_rate_limit', help: 'The adaptive push rate limit, requests per second.', labelNames: ['sync'] as const, registers }),
      inFlight: new Gauge({ name: 'ferry_push_in_flight', help: 'Records being pushed now (request out or waiting to retry).', labelNames: ['sync'] as const, registers }),
      queued: new Gauge({ name: 'ferry_push_queued', help: 'Records waiting for a push slot.', labelNames: ['sync'] as const, registers }),
      concurrency: new Gauge({ name: 'ferry_push_concurrency_limit', help: 'The adaptive push concurrency: requests that may be in flight now.', labelNames: ['sync'] as const, registers }),
      limitReason: new Gauge({
        name: 'ferry_push_limited_by',
        help: 'Why the push concurrency or rate is not higher: 1 for the current reason of each limit, 0 for the others.',
        labelNames: ['sync', 'limit', 'reason'] as const,
        registers,
      }),
      runs: new Counter({ name: 'ferry_runs_total', help: 'Runs that ended, by status.', labelNames: ['sync', 'status'] as const, registers }),
      duration: new Gauge({ name: 'ferry_run_duration_seconds', help: 'Duration of the last run that ended.', labelNames: ['sync'] as const, registers }),
      lastSuccess: new Gauge({
        name: 'ferry_last_success_timestamp_seconds',
        help: 'Unix time the last successful run (succeeded or partial) ended.',
        labelNames: ['sync'] as const,
        registers,
      }),
    };
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'ferry_' });
  }

  /** The run metrics of a sync, created on first use. */
  sync(name: string): SyncMetrics {
    let sync = this.#syncs.get(name);
    if (!sync) this.#syncs.set(name, (sync = new SyncMetrics(this.#run, name)));
    return sync;
  }

  /** The hook to give every service client of this process. */
  clientObserver(): ClientObserver {
    return (this.#observer ??= requestObserver(this.#request));
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
