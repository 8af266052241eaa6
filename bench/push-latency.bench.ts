/**
 * Push at a fixed 20 ms latency, 16 and 64 in flight: ferry's records/s ÷
 * the bound Little's law gives (concurrency ÷ latency), after its first
 * second too, the stand-in's own mean hold (the bound assumes 20 ms), and
 * the reference client and autocannon against the same bound.
 *
 * BENCH_PUSH_LATENCY_SECONDS (default 10: rows = concurrency/latency × seconds).
 */
import { StandIn } from '../test/support/stand-in/client.js';
import { httpLimit, withPushKit } from './support/push-kit.js';
import { judged, ratio, type BenchRow } from './support/rows.js';

const latencySeconds = Number(process.env.BENCH_PUSH_LATENCY_SECONDS ?? 10);
const LATENCY_MS = 20;

export function run(): Promise<BenchRow[]> {
  return withPushKit('push-latency', async ({ standIn, csv, ferry, reference }) => {
    const out: BenchRow[] = [];
    for (const concurrency of [16, 64]) {
      const bound = concurrency / (LATENCY_MS / 1000);
      // Ten seconds by default: the slow start's first 0.1 s at a fraction of the bound is a fixed cost.
      const file = await csv(Math.round(bound * latencySeconds));
      await standIn.mode({ kind: 'latency', ms: LATENCY_MS });
      await ferry(file, { concurrency, maxRequestsPerSecond: 100_000 });
      const ferryAtLatency = await standIn.writeRate();
      out.push({ name: `records/s ÷ concurrency/latency (c${concurrency})`, value: ratio(ferryAtLatency, bound), goal: '≥ 0.95' });
      out.push({ name: `the same after the run's first second (c${concurrency})`, value: ratio(await standIn.settledWriteRate(), bound) });
      // The bound assumes the stand-in holds each answer LATENCY_MS: what it held, body read to answer (see HoldTimer).
      const held = await standIn.holds();
      out.push({ name: `the stand-in's mean hold, ms (c${concurrency}; 99th percentile ${held?.p99Ms.toFixed(2)})`, value: +(held?.meanMs ?? 0).toFixed(2) });
      await standIn.mode({ kind: 'latency', ms: LATENCY_MS });
      await reference(file, concurrency);
      const referenceRate = await standIn.writeRate();
      out.push({ name: `reference client ÷ concurrency/latency (c${concurrency})`, value: ratio(referenceRate, bound) });
      out.push({ name: `reference client, after its first second (c${concurrency})`, value: ratio(await standIn.settledWriteRate(), bound) });
      out.push({ name: `ferry ÷ reference client (c${concurrency})`, value: ratio(ferryAtLatency, referenceRate) });
      // A lean HTTP load tool on raw sockets, against a stand-in of its own (after autocannon's 64 connections a
      // shared one let ferry use only 0.92-0.93 of the token bucket that followed).
      const own = await StandIn.start();
      try {
        await own.mode({ kind: 'latency', ms: LATENCY_MS });
        out.push({ name: `autocannon ÷ concurrency/latency (c${concurrency})`, value: ratio(await httpLimit(own.url, concurrency), bound) });
      } finally {
        own.close();
      }
    }
    return judged(out);
  });
}
