/**
 * A 100 req/s token bucket (burst 10, 429 with Retry-After 1): ferry at 16
 * in flight with its ceiling 10× too high, and set right. Utilisation is
 * records written per second ÷ 100; the 429 share, of all requests.
 *
 * BENCH_PUSH_BUCKET_SECONDS (default 15: rows = 100 × seconds).
 */
import { withPushKit } from './support/push-kit.js';
import { judged, ratio, type BenchRow } from './support/rows.js';

const bucketSeconds = Number(process.env.BENCH_PUSH_BUCKET_SECONDS ?? 15);

export function run(): Promise<BenchRow[]> {
  return withPushKit('push-bucket', async ({ standIn, csv, ferry }) => {
    const out: BenchRow[] = [];
    for (const ceiling of [1000, 100]) {
      await standIn.mode({ kind: 'bucket', perSecond: 100, burst: 10, retryAfterSeconds: 1 });
      await ferry(await csv(100 * bucketSeconds), { concurrency: 16, maxRequestsPerSecond: ceiling });
      const { stats } = await standIn.stats();
      const label = ceiling === 100 ? 'ceiling set right' : 'ceiling 10× too high';
      out.push({ name: `${label}: utilisation`, value: ratio(await standIn.writeRate(), 100), goal: '≥ 0.95' });
      out.push({ name: `${label}: 429 share`, value: ratio(stats.throttled, stats.requests), goal: ceiling === 100 ? '= 0' : '≤ 0.02' });
    }
    return judged(out);
  });
}
