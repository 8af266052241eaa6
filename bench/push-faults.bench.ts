/**
 * A fault mix (10 % 429 with Retry-After 1, 5 % 500, 2 % dropped
 * connections, half of them after the write was stored): ferry's throughput
 * ÷ its fault-free throughput on the same rows, and every record landed
 * exactly once. A record refused k times in a row waits k × Retry-After
 * whatever the client does, so a short run's last seconds are that fixed
 * tail: the ratio is given at BENCH_PUSH_ROWS (default 20000) and at 5× it,
 * where the tail weighs as in a longer sync; the goal is judged on the latter.
 */
import { C16, withPushKit } from './support/push-kit.js';
import { judged, ratio, type BenchRow } from './support/rows.js';

const rows = Number(process.env.BENCH_PUSH_ROWS ?? 20_000);

export function run(): Promise<BenchRow[]> {
  return withPushKit('push-faults', async ({ standIn, csv, ferry }) => {
    const out: BenchRow[] = [];
    for (const n of [rows, rows * 5]) {
      const file = await csv(n);
      await standIn.mode({ kind: 'instant' });
      await ferry(file, C16);
      const faultFree = await standIn.writeRate();
      await standIn.mode({ kind: 'faults', throttled: 0.1, failed: 0.05, dropped: 0.02, retryAfterSeconds: 1 });
      await ferry(file, C16);
      const { records, stats } = await standIn.stats();
      const faultyRate = (records * 1000) / Math.max(1, stats.lastWriteAt - stats.firstWriteAt);
      out.push({ name: `${n} rows: throughput ÷ fault-free (same rows)`, value: ratio(faultyRate, faultFree), ...(n === rows ? {} : { goal: '≥ 0.3' }) });
      out.push({ name: `${n} rows: records landed ÷ records read (exactly once)`, value: ratio(records, n), goal: '= 1' });
    }
    return judged(out);
  });
}
