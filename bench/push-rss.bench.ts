/**
 * Peak RSS of `ferry run` (the kernel's high-water mark, process-figures.mjs)
 * at BENCH_RSS_ROWS (default 100000) and 10× it, zero latency, c16: a first
 * run, then a no-op re-run of the same file on its state. Flat is the goal.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { ferryCliRun } from './support/ferry-cli.js';
import { C16, withPushKit } from './support/push-kit.js';
import { judged, ratio, type BenchRow } from './support/rows.js';

const rssRows = Number(process.env.BENCH_RSS_ROWS ?? 100_000);

export function run(): Promise<BenchRow[]> {
  return withPushKit('push-rss', async ({ standIn, dir, csv }) => {
    // The stand-in is not reset between a run and its re-run, so the source and object type keep their ids.
    await standIn.mode({ kind: 'instant' });
    const peaks = [];
    for (const n of [rssRows, rssRows * 10]) {
      const project = mkdtempSync(join(dir, 'project-'));
      const file = await csv(n);
      const once = async (label: string) => {
        process.stderr.write(`push-rss bench: ferry run ${label}, ${n} rows\n`);
        const result = await ferryCliRun(project, file, standIn.url, C16);
        if (result.status !== 'succeeded') throw new Error(`ferry run ${result.status} (${label}, ${n} rows)`);
        return result;
      };
      const first = await once('first run');
      const noop = await once('no-op re-run');
      if (noop.counts.unchanged !== n) throw new Error(`the re-run found ${noop.counts.unchanged} of ${n} records unchanged`);
      peaks.push({ first: first.peakRssMb, noop: noop.peakRssMb });
    }
    const [small, large] = peaks as [{ first: number; noop: number }, { first: number; noop: number }];
    return judged([
      { name: `peak RSS MB (${rssRows} rows)`, value: Math.round(small.first), goal: '≤ 200' },
      { name: `peak RSS MB (${rssRows * 10} rows)`, value: Math.round(large.first), goal: '≤ 200' },
      { name: 'peak RSS ratio, 10× rows', value: ratio(large.first, small.first), goal: '≤ 1.1' },
      { name: `peak RSS MB, no-op re-run (${rssRows} rows)`, value: Math.round(small.noop), goal: '≤ 200' },
      { name: `peak RSS MB, no-op re-run (${rssRows * 10} rows)`, value: Math.round(large.noop), goal: '≤ 200' },
      { name: 'peak RSS ratio, no-op re-run, 10× rows', value: ratio(large.noop, small.noop), goal: '≤ 1.1' },
    ]);
  });
}
