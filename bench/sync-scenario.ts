/**
 * One sync, in its own process so its peak memory is its own: a CSV of N
 * synthetic CRM deals (real rows from shared/datasets with unique ids) into
 * a file-backed emulator on a port, then the same run again. Prints JSON.
 *
 * Usage: tsx bench/sync-scenario.ts <rows> [--dry-run]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type * as EmulatorModule from '../src/emulator/index.js';
import type * as RunProjectModule from '../src/pipeline/run-project.js';
import type * as HeapModule from '../src/runtime/heap.js';
import { dealsTarget, writeDealsCsv } from './push/deals.js';

// ferry and its emulator are loaded from dist/ (the compiled JavaScript `ferry run` executes), as the push
// benches do (bench/push/ferry-run.ts): tsx's transform adds work per call that a user never pays.
// BENCH_FROM_SOURCE=1 loads src/ instead, for profiling a change before building.
const root = process.env.BENCH_FROM_SOURCE ? '../src' : '../dist/src';
const { startEmulator } = (await import(`${root}/emulator/index.js`)) as typeof EmulatorModule;
const { runProject } = (await import(`${root}/pipeline/run-project.js`)) as typeof RunProjectModule;
const { applyHeapDefaults } = (await import(`${root}/runtime/heap.js`)) as typeof HeapModule;

// As `ferry run` starts (src/cli/main.ts).
applyHeapDefaults();
const rows = Number(process.argv[2] ?? 10_000);
const dryRun = process.argv.includes('--dry-run');
const dir = mkdtempSync(join(tmpdir(), 'ferry-bench-'));

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

await writeDealsCsv(join(dir, 'deals.csv'), rows);
const emulator = await startEmulator({ db: join(dir, 'emulator.db') });
writeFileSync(
  join(dir, 'ferry.yaml'),
  `version: 1
service: { baseUrl: ${emulator.url}, apiKey: "${emulator.devKey}", concurrency: 8, maxRequestsPerSecond: 100000 }
syncs:
  - name: deals
    source: { type: csv, path: deals.csv, primaryKey: opportunity_id }
${dealsTarget()}`,
);
const baseRss = process.memoryUsage().rss;
peakRss = baseRss;
const logger = pino({ level: 'silent' });
const time = async () => {
  const t = process.hrtime.bigint();
  const [summary] = await runProject({ configFile: join(dir, 'ferry.yaml'), syncNames: [], logger, dryRun });
  return { seconds: Number(process.hrtime.bigint() - t) / 1e9, summary: summary! };
};
const first = await time();
const second = await time();
clearInterval(sampler);
await emulator.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    rows,
    firstSeconds: first.seconds,
    secondSeconds: second.seconds,
    firstCounts: first.summary.counts,
    secondCounts: second.summary.counts,
    peakRssDeltaMb: (peakRss - baseRss) / 1024 / 1024,
  }),
);
