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
import { readdirSync } from 'node:fs';
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
// The push benches run ferry from dist/, as `ferry run` does: build it when a source is newer.
execFileSync(process.execPath, [resolve(import.meta.dirname, '../scripts/build.js'), '--if-stale'], { stdio: ['ignore', 'ignore', 'inherit'] });

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


// The emulator scenario (first run and re-run into the in-process emulator); BENCH_ONLY skips it.
if (process.env.BENCH_ONLY === undefined) {
  const s = scenario(small);
  const l = scenario(large);
  figures['sync: records/s (first run, small)'] = Math.round(s.firstCounts.created / s.firstSeconds);
  figures['sync: records/s (first run, large)'] = Math.round(l.firstCounts.created / l.firstSeconds);
  figures['re-run: unchanged records/s (large)'] = Math.round(l.secondCounts.unchanged / l.secondSeconds);
  figures['re-run time / first-run time (large)'] = +(l.secondSeconds / l.firstSeconds).toFixed(3);
  figures[`memory: peak RSS growth MB (${small} rows)`] = +s.peakRssDeltaMb.toFixed(1);
  figures[`memory: peak RSS growth MB (${large} rows)`] = +l.peakRssDeltaMb.toFixed(1);
  figures[`memory ratio ${large / small}× rows (flat ≈ 1)`] = +(l.peakRssDeltaMb / Math.max(s.peakRssDeltaMb, 1)).toFixed(2);
}

// Every bench/*.bench.ts exporting run(): figures (name → number) or rows with goals.
type Row = { name: string; value: number | string; goal?: string; ok?: boolean };
const rows: Row[] = Object.entries(figures).map(([name, value]) => ({ name: `emulator ${name}`, value }));
const only = process.env.BENCH_ONLY; // e.g. BENCH_ONLY=push runs push.bench.ts alone
const files = readdirSync(import.meta.dirname).filter((f) => f.endsWith('.bench.ts') && (!only || f.startsWith(only))).sort();
for (const file of files) {
  const label = file.replace('.bench.ts', '');
  try {
    const mod = (await import(pathToFileURL(resolve(import.meta.dirname, file)).href)) as { run: () => Promise<Record<string, number> | Row[]> };
    const result = await mod.run();
    if (Array.isArray(result)) rows.push(...result.map((row) => ({ ...row, name: `${label}: ${row.name}` })));
    else for (const [name, value] of Object.entries(result)) rows.push({ name: `${label}: ${name}`, value });
  } catch (error) {
    rows.push({ name: `${label}: skipped`, value: error instanceof Error ? error.message : String(error) });
  }
}
// The no-op re-run figure comes from its own bench file when there is one.
if (!rows.some((r) => /no-op/i.test(r.name))) rows.push({ name: 'no-op re-run ÷ parse', value: 'not measured (no bench file reports it)', goal: '≤ 2' });

const width = Math.max(...rows.map((r) => r.name.length));
console.log(`${'measure'.padEnd(width)}  ${'value'.padStart(10)}  goal`);
for (const row of rows) {
  const verdict = row.ok === undefined ? '' : row.ok ? '  ok' : '  MISSED';
  console.log(`${row.name.padEnd(width)}  ${String(row.value).padStart(10)}  ${row.goal ?? ''}${verdict}`);
}
