/**
 * A sync into the emulator over HTTP, as a new user's first runs go: `ferry
 * emulator` (file-backed) and `ferry run` in processes of their own, a CSV
 * of BENCH_SMALL (default 5000) and BENCH_LARGE (default 50000) deals, a
 * first run and an unchanged re-run (which sends no record request) of each.
 * Times are the sync's own (ferry's summary, start-up left out); memory is
 * the `ferry run` process's peak RSS, flat across sizes when it streams.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dealsTarget, writeDealsCsv } from './support/deals.js';
import { ferryEmulator, ferryRun, type CliRun } from './support/ferry-cli.js';

const small = Number(process.env.BENCH_SMALL ?? 5_000);
const large = Number(process.env.BENCH_LARGE ?? 50_000);

async function scenario(rows: number): Promise<{ first: CliRun; second: CliRun }> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-emulator-bench-'));
  const emulator = await ferryEmulator(join(dir, 'emulator.db'));
  try {
    await writeDealsCsv(join(dir, 'deals.csv'), rows);
    const config = join(dir, 'ferry.yaml');
    writeFileSync(
      config,
      `version: 1
service: { baseUrl: ${emulator.url}, apiKey: "${emulator.apiKey}", concurrency: 8, maxRequestsPerSecond: 100000 }
state: { url: "sqlite:state/ferry.db" }
syncs:
  - name: deals
    source: { type: csv, path: deals.csv, primaryKey: opportunity_id }
${dealsTarget()}`,
    );
    process.stderr.write(`emulator bench: ferry run, ${rows} rows, first run and re-run\n`);
    const first = await ferryRun(dir, config);
    const second = await ferryRun(dir, config);
    if (first.status !== 'succeeded' || second.status !== 'succeeded') throw new Error(`ferry run ${first.status}/${second.status}: ${first.error ?? second.error ?? ''}`);
    return { first, second };
  } finally {
    emulator.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<Record<string, number>> {
  const s = await scenario(small);
  const l = await scenario(large);
  return {
    'sync: records/s (first run, small)': Math.round((s.first.counts.created * 1000) / s.first.durationMs),
    'sync: records/s (first run, large)': Math.round((l.first.counts.created * 1000) / l.first.durationMs),
    're-run: unchanged records/s (large)': Math.round((l.second.counts.unchanged * 1000) / l.second.durationMs),
    're-run time / first-run time (large)': +(l.second.durationMs / l.first.durationMs).toFixed(3),
    [`memory: peak RSS MB (${small} rows)`]: Math.round(s.first.peakRssMb),
    [`memory: peak RSS MB (${large} rows)`]: Math.round(l.first.peakRssMb),
    [`memory ratio ${large / small}× rows (flat ≈ 1)`]: +(l.first.peakRssMb / s.first.peakRssMb).toFixed(2),
  };
}
