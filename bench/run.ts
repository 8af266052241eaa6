/**
 * `npm run bench`: ferry's speed and memory targets, as figures and ratios
 * measured in this one run (never asserted in the test suite). What each row
 * measures, against what, and its goal: docs/performance.md, "The benchmark suite".
 *
 * A row group is one file, bench/<name>.bench.ts, exporting `run()`: rows
 * (name, value, goal) or figures (name → number). It runs ferry through its
 * public entry points (the CLI, bench/support/ferry-cli.ts, or the exported
 * API). To add one, write the file and add its name to GROUPS.
 *
 * BENCH_ONLY=<name>[,<name>…] runs the groups whose names start with one of
 * these (BENCH_ONLY=push runs every push-* group, BENCH_ONLY=push-zero one).
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchRow } from './support/rows.js';

/** Every row group, in the order the table shows them. */
const GROUPS = [
  'emulator',
  'push-zero',
  'push-latency',
  'push-bucket',
  'push-faults',
  'push-rss',
  'outage',
  'noop-rerun',
  'adaptive',
  'export',
  'export-read',
  'state-postgres',
  'databases',
  'cdc',
  'workers',
];

// ferry runs from dist/, as `ferry run` does: build it when a source is newer.
execFileSync(process.execPath, [resolve(import.meta.dirname, '../scripts/build.js'), '--if-stale'], { stdio: ['ignore', 'ignore', 'inherit'] });

const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim()).filter(Boolean);
const selected = GROUPS.filter((name) => !only || only.some((prefix) => name.startsWith(prefix)));
if (selected.length === 0) throw new Error(`BENCH_ONLY=${process.env.BENCH_ONLY} names no row group; the groups: ${GROUPS.join(', ')}`);

const rows: BenchRow[] = [];
for (const group of selected) {
  try {
    const mod = (await import(pathToFileURL(resolve(import.meta.dirname, `${group}.bench.ts`)).href)) as { run: () => Promise<Record<string, number> | BenchRow[]> };
    const result = await mod.run();
    if (Array.isArray(result)) rows.push(...result.map((row) => ({ ...row, name: `${group}: ${row.name}` })));
    else for (const [name, value] of Object.entries(result)) rows.push({ name: `${group}: ${name}`, value });
  } catch (error) {
    rows.push({ name: `${group}: skipped`, value: error instanceof Error ? error.message : String(error) });
  }
}

const width = Math.max(...rows.map((r) => r.name.length));
console.log(`${'measure'.padEnd(width)}  ${'value'.padStart(10)}  goal`);
for (const row of rows) {
  const verdict = row.ok === undefined ? '' : row.ok ? '  ok' : '  MISSED';
  console.log(`${row.name.padEnd(width)}  ${String(row.value).padStart(10)}  ${row.goal ?? ''}${verdict}`);
}
