/**
 * Run-level metrics of one sync. Nothing is counted on the hot path: the run's
 * own counts object and pusher are kept while it runs and read when metrics
 * are collected; finished runs are folded into running totals.
 */
import type { Counter, Gauge } from 'prom-client';
import type { RunCounts } from '../state/index.js';
import type { Pusher } from '../sink/index.js';
import { CONCURRENCY_REASONS, RATE_REASONS, readPushGauges } from './pusher-stats.js';

/**
 * What metrics read of a running sync: the runner's `LiveRun`, named here by
 * shape so that metrics stay below the pipeline that calls them.
 */
export interface LiveRunView {
  counts: Readonly<RunCounts>;
  pusher?: Pusher;
  /** What a change source last reported of its lag (SourceLag), updated in place. */
  sourceLag?: { bytes?: number; seconds?: number; warning?: string };
}

/** What metrics read of a finished run's summary (the runner's `RunSummary`). */
export interface FinishedRunView {
  status: string;
  counts: RunCounts;
  durationMs: number;
}

/** The record outcomes exported, as `ferry_records_total{outcome}`. */
export const RECORD_OUTCOMES = ['read', 'created', 'updated', 'unchanged', 'skipped', 'failed', 'deleted'] as const satisfies readonly (keyof RunCounts)[];

export interface RunMetrics {
  records: Counter<'sync' | 'outcome'>;
  pushRetries: Counter<'sync'>;
  rate: Gauge<'sync'>;
  inFlight: Gauge<'sync'>;
  queued: Gauge<'sync'>;
  concurrency: Gauge<'sync'>;
  limitReason: Gauge<'sync' | 'limit' | 'reason'>;
  runs: Counter<'sync' | 'status'>;
  duration: Gauge<'sync'>;
  lastSuccess: Gauge<'sync'>;
  sourceLagBytes: Gauge<'sync'>;
  sourceLagSeconds: Gauge<'sync'>;
  sourceLagWarning: Gauge<'sync'>;
}

/** Statuses after which a run counts as a success: it read to the end and checkpointed. */
const SUCCESS = new Set(['succeeded', 'partial']);

export class SyncMetrics {
  readonly #metrics: RunMetrics;
  readonly #sync: string;
  #live: LiveRunView | undefined;
  /** Totals of finished runs, and what has been added to the counters so far, per outcome. */
  readonly #finished = RECORD_OUTCOMES.map(() => 0);
  readonly #exported = RECORD_OUTCOMES.map(() => 0);
  readonly #recordChildren: { inc(n: number): void }[];
  #finishedRetries = 0;
  #exportedRetries = 0;

  constructor(metrics: RunMetrics, sync: string) {
    this.#metrics = metrics;
    this.#sync = sync;
    this.#recordChildren = RECORD_OUTCOMES.map((outcome) => metrics.records.labels(sync, outcome));
  }

  /** Pass as `onRunStart` of a run of this sync. */
  readonly onRunStart = (run: LiveRunView): void => {
    this.#live = run;
  };

  /** Fold a run that ended (any status) into the totals and set its duration and status. */
  finish(summary: FinishedRunView): void {
    RECORD_OUTCOMES.forEach((outcome, i) => (this.#finished[i]! += summary.counts[outcome]));
    // Publish the last rate while the pusher is still at hand, then fold its retries in.
    this.publishPushGauges();
    if (this.#live?.pusher) this.#finishedRetries += readPushGauges(this.#live.pusher).retries;
    this.#live = undefined;
    const sync = this.#sync;
    this.#metrics.inFlight.labels(sync).set(0);
    this.#metrics.queued.labels(sync).set(0);
    this.#metrics.runs.labels(sync, summary.status).inc();
    this.#metrics.duration.labels(sync).set(summary.durationMs / 1000);
    if (SUCCESS.has(summary.status)) this.#metrics.lastSuccess.labels(sync).set(Date.now() / 1000);
  }

  /** A success known from before this process (the state store's run history). */
  restoreLastSuccess(at: Date): void {
    this.#metrics.lastSuccess.labels(this.#sync).set(at.getTime() / 1000);
  }

  /** Bring the record counters up to finished + live totals (at collect time). */
  publishRecords(): void {
    const live = this.#live?.counts;
    RECORD_OUTCOMES.forEach((outcome, i) => {
      const total = this.#finished[i]! + (live ? live[outcome] : 0);
      const delta = total - this.#exported[i]!;
      if (delta > 0) this.#recordChildren[i]!.inc(delta);
      this.#exported[i] = total;
    });
  }

  /** Bring the push retry counter and the limiter gauges up to date (at collect time). */
  publishPushGauges(): void {
    const pusher = this.#live?.pusher;
    if (!pusher) return;
    const gauges = readPushGauges(pusher);
    const sync = this.#sync;
    this.publishSourceLag();
    this.#metrics.rate.labels(sync).set(gauges.ratePerSecond);
    this.#metrics.inFlight.labels(sync).set(gauges.inFlight);
    this.#metrics.queued.labels(sync).set(gauges.queued);
    this.#metrics.concurrency.labels(sync).set(gauges.concurrency);
    for (const reason of CONCURRENCY_REASONS) this.#metrics.limitReason.labels(sync, 'concurrency', reason).set(reason === gauges.concurrencyReason ? 1 : 0);
    for (const reason of RATE_REASONS) this.#metrics.limitReason.labels(sync, 'rate', reason).set(reason === gauges.rateReason ? 1 : 0);
    const total = this.#finishedRetries + gauges.retries;
    if (total > this.#exportedRetries) this.#metrics.pushRetries.labels(sync).inc(total - this.#exportedRetries);
    this.#exportedRetries = total;
  }

  /** A change source's lag (a replication slot's retained WAL and the age of what is unconfirmed), when it reports one. */
  publishSourceLag(): void {
    const lag = this.#live?.sourceLag;
    if (!lag || (lag.bytes === undefined && lag.seconds === undefined)) return;
    const sync = this.#sync;
    if (lag.bytes !== undefined) this.#metrics.sourceLagBytes.labels(sync).set(lag.bytes);
    if (lag.seconds !== undefined) this.#metrics.sourceLagSeconds.labels(sync).set(lag.seconds);
    this.#metrics.sourceLagWarning.labels(sync).set(lag.warning === undefined ? 0 : 1);
  }
}
