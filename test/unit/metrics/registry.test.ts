/**
 * FerryMetrics without a network: request events through the client
 * observer, and run metrics read from a live run's counts and pusher when
 * scraped, folded into totals across runs.
 */
import { describe, expect, it } from 'vitest';
import { FerryMetrics } from '../../../src/metrics/index.js';
import type { LiveRun, RunSummary } from '../../../src/pipeline/run-sync.js';
import type { Pusher } from '../../../src/sink/index.js';
import { emptyCounts } from '../../../src/state/index.js';
import { parseExposition, total } from '../../integration/metrics/prom-text.js';

function fakePusher(stats: { currentRate: number; inFlight: number; queued: number; retries: number }): Pusher {
  // Every field metrics read (src/metrics/pusher-stats.ts) is given, so a gauge that reads one more fails here first.
  return {
    stats: () => ({ requests: 0, throttled: 0, succeeded: 0, rejected: 0, concurrency: 24, concurrencyReason: 'latency', rateReason: 'throttled', ...stats }),
  } as unknown as Pusher;
}

function summary(counts: RunSummary['counts'], status: RunSummary['status'], durationMs = 1500): RunSummary {
  return { sync: 'deals', runId: 'r1', status, counts, durationMs, cursor: null, changes: [], exitCode: 0 };
}

async function scrape(metrics: FerryMetrics) {
  return parseExposition(await metrics.text());
}

describe('FerryMetrics', () => {
  it('times requests by endpoint and status and counts 429s and client retries', async () => {
    const metrics = new FerryMetrics();
    const observer = metrics.clientObserver();
    observer.onResponse?.({ endpoint: 'createRow', status: 201, durationMs: 30, attempt: 1 });
    observer.onResponse?.({ endpoint: 'createRow', status: 201, durationMs: 70, attempt: 1 });
    observer.onResponse?.({ endpoint: 'createRow', status: 429, durationMs: 5, attempt: 1 });
    observer.onRetry?.({ endpoint: 'listSources', errorCode: 'ECONNRESET', attempt: 1, delayMs: 10 });
    const samples = await scrape(metrics);
    expect(total(samples, 'ferry_http_request_duration_seconds_count', { endpoint: 'createRow', status: '201' })).toBe(2);
    expect(total(samples, 'ferry_http_request_duration_seconds_sum', { endpoint: 'createRow', status: '201' })).toBeCloseTo(0.1);
    expect(total(samples, 'ferry_http_request_duration_seconds_bucket', { endpoint: 'createRow', status: '201', le: '0.05' })).toBe(1);
    expect(total(samples, 'ferry_http_throttled_total', { endpoint: 'createRow' })).toBe(1);
    expect(total(samples, 'ferry_http_retries_total', { endpoint: 'listSources' })).toBe(1);
    expect(metrics.clientObserver()).toBe(observer);
  });

  it('reads a live run when scraped and folds finished runs into totals', async () => {
    const metrics = new FerryMetrics();
    const sync = metrics.sync('deals');
    const counts = emptyCounts();
    const pusher = fakePusher({ currentRate: 12.5, inFlight: 3, queued: 7, retries: 2 });
    sync.onRunStart({ counts, pusher } satisfies LiveRun);
    counts.read = 10;
    counts.created = 8;
    counts.failed = 1;

    let samples = await scrape(metrics);
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'read' })).toBe(10);
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'created' })).toBe(8);
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'failed' })).toBe(1);
    expect(total(samples, 'ferry_push_rate_limit', { sync: 'deals' })).toBe(12.5);
    expect(total(samples, 'ferry_push_in_flight', { sync: 'deals' })).toBe(3);
    expect(total(samples, 'ferry_push_queued', { sync: 'deals' })).toBe(7);
    expect(total(samples, 'ferry_push_retries_total', { sync: 'deals' })).toBe(2);
    expect(total(samples, 'ferry_push_concurrency_limit', { sync: 'deals' })).toBe(24);
    expect(total(samples, 'ferry_push_limited_by', { sync: 'deals', limit: 'concurrency', reason: 'latency' })).toBe(1);
    expect(total(samples, 'ferry_push_limited_by', { sync: 'deals', limit: 'concurrency', reason: 'growing' })).toBe(0);
    expect(total(samples, 'ferry_push_limited_by', { sync: 'deals', limit: 'rate', reason: 'throttled' })).toBe(1);

    counts.read = 12;
    counts.created = 10;
    sync.finish(summary(counts, 'partial'));
    samples = await scrape(metrics);
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'read' })).toBe(12);
    expect(total(samples, 'ferry_push_retries_total', { sync: 'deals' })).toBe(2);
    expect(total(samples, 'ferry_push_in_flight', { sync: 'deals' })).toBe(0);
    expect(total(samples, 'ferry_runs_total', { sync: 'deals', status: 'partial' })).toBe(1);
    expect(total(samples, 'ferry_run_duration_seconds', { sync: 'deals' })).toBe(1.5);
    expect(total(samples, 'ferry_last_success_timestamp_seconds', { sync: 'deals' })).toBeGreaterThan(0);

    // A second run with its own counts and pusher adds to the totals.
    const next = emptyCounts();
    sync.onRunStart({ counts: next, pusher: fakePusher({ currentRate: 6, inFlight: 0, queued: 0, retries: 1 }) });
    next.read = 5;
    next.unchanged = 5;
    sync.finish(summary(next, 'failed'));
    samples = await scrape(metrics);
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'read' })).toBe(17);
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'unchanged' })).toBe(5);
    expect(total(samples, 'ferry_push_retries_total', { sync: 'deals' })).toBe(3);
    expect(total(samples, 'ferry_push_rate_limit', { sync: 'deals' })).toBe(6);
    expect(total(samples, 'ferry_runs_total', { sync: 'deals', status: 'failed' })).toBe(1);
  });

  it("shows a change source's lag as it reports it: bytes, seconds, and the warning as 0 or 1", async () => {
    const metrics = new FerryMetrics();
    const sync = metrics.sync('deals');
    const sourceLag: NonNullable<LiveRun['sourceLag']> = {};
    sync.onRunStart({ counts: emptyCounts(), sourceLag, pusher: fakePusher({ currentRate: 1, inFlight: 0, queued: 0, retries: 0 }) });
    let samples = await scrape(metrics);
    expect(samples.some((s) => s.name === 'ferry_source_lag_bytes')).toBe(false);
    Object.assign(sourceLag, { bytes: 4096, seconds: 1.5 });
    samples = await scrape(metrics);
    expect(total(samples, 'ferry_source_lag_bytes', { sync: 'deals' })).toBe(4096);
    expect(total(samples, 'ferry_source_lag_seconds', { sync: 'deals' })).toBe(1.5);
    expect(total(samples, 'ferry_source_lag_warning', { sync: 'deals' })).toBe(0);
    Object.assign(sourceLag, { bytes: 2 ** 31, warning: 'slot ferry_deals holds back 2147483648 bytes of WAL (above lagWarnBytes 1073741824)' });
    samples = await scrape(metrics);
    expect(total(samples, 'ferry_source_lag_bytes', { sync: 'deals' })).toBe(2 ** 31);
    expect(total(samples, 'ferry_source_lag_warning', { sync: 'deals' })).toBe(1);
  });

  it('folds a run that threw: with the counts its failure carried, or as an empty failed run', async () => {
    const metrics = new FerryMetrics();
    const sync = metrics.sync('deals');
    const counts = { ...emptyCounts(), read: 4, created: 3 };
    sync.onRunStart({ counts });
    sync.finish({ ...summary(counts, 'partial'), status: 'failed' });
    sync.finish({ counts: emptyCounts(), durationMs: 0, status: 'failed' });
    const samples = await scrape(metrics);
    expect(total(samples, 'ferry_runs_total', { sync: 'deals', status: 'failed' })).toBe(2);
    expect(total(samples, 'ferry_records_total', { sync: 'deals', outcome: 'read' })).toBe(4);
    expect(total(samples, 'ferry_last_success_timestamp_seconds', { sync: 'deals' })).toBe(0);
  });

  it('keeps registries apart and registers nothing globally', async () => {
    const { register } = await import('prom-client');
    const a = new FerryMetrics();
    const b = new FerryMetrics({ processMetrics: true });
    a.clientObserver().onResponse?.({ endpoint: 'health', status: 200, durationMs: 1, attempt: 1 });
    expect(total(await scrape(b), 'ferry_http_request_duration_seconds_count')).toBe(0);
    expect(await scrape(b)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'ferry_process_cpu_user_seconds_total' })]));
    expect(register.getMetricsAsArray()).toEqual([]);
  });
});
