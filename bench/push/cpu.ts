/**
 * CPU per record, ferry against the hand-written client, at zero latency:
 * a figure that holds up when other processes share the machine (the push
 * bench's records/s ratio does not). Not part of `npm run bench`; run it by hand:
 *
 *   tsx bench/push/cpu.ts [rows=20000] [rounds=2] [concurrency=16]
 *
 * BENCH_CPU_PROF=dir writes a `--cpu-prof` profile of each child into dir;
 * BENCH_NODE_FLAGS adds other node flags (`--heap-prof --heap-prof-dir=...`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeDealsCsv } from './deals.js';
import { StandIn } from '../../test/support/stand-in/client.js';
import { compileScript, type CompiledScript } from '../../test/support/compiled-script.js';

const [rowsText = '20000', roundsText = '2', concurrencyText = '16'] = process.argv.slice(2);
const rows = Number(rowsText);
const tsx = resolve(import.meta.dirname, '../../node_modules/tsx/dist/cli.mjs');
const profileDir = process.env.BENCH_CPU_PROF;

/** Both scripts as plain JavaScript, as the push bench runs them (test/support/compiled-script.ts); from source, through tsx. */
const compiled = new Map<string, CompiledScript>();
if (!process.env.BENCH_FROM_SOURCE) {
  for (const script of ['ferry-run.ts', 'baseline.ts']) compiled.set(script, await compileScript(resolve(import.meta.dirname, script)));
}

function child(script: string, args: (string | number)[]): { cpuUs: number; mainCpuUs: number } {
  const flags = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])];
  const file = compiled.get(script)?.file;
  // In-process loader (not tsx's CLI, which runs the script in a child of its own) so the profile is the script's.
  const command = file !== undefined ? [...flags, file] : flags.length > 0 ? [...flags, '--import', 'tsx', resolve(import.meta.dirname, script)] : [tsx, resolve(import.meta.dirname, script)];
  const out = execFileSync(process.execPath, [...command, ...args.map(String)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop()!) as { cpuUs: number; mainCpuUs: number };
}

const dir = mkdtempSync(join(tmpdir(), 'ferry-push-cpu-'));
const standIn = await StandIn.start();
try {
  const url = standIn.url;
  const csv = join(dir, 'deals.csv');
  await writeDealsCsv(csv, rows);
  const rate = () => standIn.writeRate();
  const reset = () => standIn.mode({ kind: 'instant' });
  for (let round = 1; round <= Number(roundsText); round++) {
    await reset();
    const ferry = child('ferry-run.ts', [url, csv, concurrencyText, 100_000]);
    const ferryRate = await rate();
    await reset();
    const baseline = child('baseline.ts', [url, csv, concurrencyText]);
    const baselineRate = await rate();
    const perRecord = (us: number) => +(us / rows).toFixed(1);
    console.log(
      JSON.stringify({
        round,
        ferryCpuUsPerRecord: perRecord(ferry.cpuUs),
        baselineCpuUsPerRecord: perRecord(baseline.cpuUs),
        cpuRatio: +(ferry.cpuUs / baseline.cpuUs).toFixed(2),
        ferryMainUsPerRecord: perRecord(ferry.mainCpuUs),
        baselineMainUsPerRecord: perRecord(baseline.mainCpuUs),
        ferryRate: Math.round(ferryRate),
        baselineRate: Math.round(baselineRate),
        rateRatio: +(ferryRate / baselineRate).toFixed(3),
      }),
    );
  }
} finally {
  standIn.close();
  for (const script of compiled.values()) script.remove();
  rmSync(dir, { recursive: true, force: true });
}
