/**
 * `npm run bench`: ferry's speed and memory targets, as figures and ratios
 * measured in this one run (never asserted in the test suite).
 *
 * - sync throughput: records/s of a first run into the emulator over HTTP
 * - re-run ratio: an unchanged re-run's time over the first run's (it sends no request)
 * - memory: peak RSS growth of a 10× larger sync over the small one (flat ≈ 1)
 * - state store and database-source micro-benchmarks, when present
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Scenario {
  rows: number;
  firstSeconds: number;
  secondSeconds: number;
  firstCounts: { created: number };
  secondCounts: { unchanged: number };
  peakRssDeltaMb: number;
}

const tsx = resolve(import.meta.dirname, '../node_modules/tsx/dist/cli.mjs');
function scenario(rows: number, ...flags: string[]): Scenario {
  const out = execFileSync(process.execPath, [tsx, resolve(import.meta.dirname, 'sync-scenario.ts'), String(rows), ...flags], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop()!) as Scenario;
}

const small = Number(process.env.BENCH_SMALL ?? 5_000);
const large = Number(process.env.BENCH_LARGE ?? 50_000);
const figures: Record<string, string | number> = {};

const s = scenario(small);
const l = scenario(large);
figures['sync: records/s (first run, small)'] = Math.round(s.firstCounts.created / s.firstSeconds);
figures['sync: records/s (first run, large)'] = Math.round(l.firstCounts.created / l.firstSeconds);
figures['re-run: unchanged records/s (large)'] = Math.round(l.secondCounts.unchanged / l.secondSeconds);
figures['re-run time / first-run time (large)'] = +(l.secondSeconds / l.firstSeconds).toFixed(3);
figures[`memory: peak RSS growth MB (${small} rows)`] = +s.peakRssDeltaMb.toFixed(1);
figures[`memory: peak RSS growth MB (${large} rows)`] = +l.peakRssDeltaMb.toFixed(1);
figures[`memory ratio ${large / small}× rows (flat ≈ 1)`] = +(l.peakRssDeltaMb / Math.max(s.peakRssDeltaMb, 1)).toFixed(2);

for (const file of ['state.bench.ts', 'databases.bench.ts']) {
  const path = resolve(import.meta.dirname, file);
  if (!existsSync(path)) continue;
  try {
    const mod = (await import(pathToFileURL(path).href)) as { run: () => Promise<Record<string, number>> };
    for (const [name, value] of Object.entries(await mod.run())) figures[`${file.replace('.bench.ts', '')}: ${name}`] = value;
  } catch (error) {
    figures[`${file}: skipped`] = error instanceof Error ? error.message : String(error);
  }
}

const width = Math.max(...Object.keys(figures).map((k) => k.length));
for (const [name, value] of Object.entries(figures)) console.log(`${name.padEnd(width)}  ${value}`);
