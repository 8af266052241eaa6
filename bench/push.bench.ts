/**
 * Push at the service's bound: ferry against a stand-in service it does not
 * share a process with, each figure a ratio measured in this one run.
 *
 * - ferry ÷ a hand-written undici client (same bodies, same concurrency), zero latency
 * - ferry ÷ the stand-in's own HTTP limit (autocannon)
 * - efficiency ÷ concurrency/latency at 16 and 64, 20 ms latency
 * - rate-limit utilisation and 429 share against a 100 req/s bucket (ceiling 10× too high, and set right)
 * - fault-mix ÷ fault-free throughput, with exact landing checked
 * - peak RSS at two sizes
 *
 * Throughput is what the stand-in saw, first record write to last (the push
 * phase alone). Sizes: BENCH_PUSH_ROWS (default 20000; the large RSS run is 10×), BENCH_PUSH_BUCKET_SECONDS (default 15).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import type { StandInMode, StandInStats } from './stand-in/service.js';
import { writeDealsCsv } from './push/deals.js';

export interface BenchRow {
  name: string;
  value: number;
  /** What the issue asks for, as text (`≥ 0.8`). */
  goal?: string;
  ok?: boolean;
}

interface FerryResult {
  seconds: number;
  counts: { pushed: number; failed: number };
  status: string;
  error?: string;
  peakRssMb: number;
}

const tsx = resolve(import.meta.dirname, '../node_modules/tsx/dist/cli.mjs');
const rows = Number(process.env.BENCH_PUSH_ROWS ?? 20_000);
const bucketSeconds = Number(process.env.BENCH_PUSH_BUCKET_SECONDS ?? 15);
const LATENCY_MS = 20;

function child(script: string, args: (string | number)[]): unknown {
  const out = execFileSync(process.execPath, [tsx, resolve(import.meta.dirname, script), ...args.map(String)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

class StandIn {
  private constructor(readonly url: string, private readonly stop: () => void) {}

  static async start(): Promise<StandIn> {
    const proc = spawn(process.execPath, [tsx, resolve(import.meta.dirname, 'stand-in/main.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((ok) => createInterface({ input: proc.stdout }).once('line', ok));
    return new StandIn(line.trim(), () => proc.kill('SIGTERM'));
  }

  async mode(mode: StandInMode): Promise<void> {
    await getJson(`${this.url}/__stand-in/mode?reset=1&json=${encodeURIComponent(JSON.stringify(mode))}`);
  }

  async stats(): Promise<{ stats: StandInStats; records: number }> {
    return (await getJson(`${this.url}/__stand-in/stats`)) as { stats: StandInStats; records: number };
  }

  close(): void {
    this.stop();
  }
}

/**
 * Records written per second as the service saw them, first write to last:
 * the push phase alone, without process start and setup, which a short bench
 * run would otherwise weigh far more than a real sync does.
 */
async function writeRate(standIn: StandIn): Promise<number> {
  const { stats } = await standIn.stats();
  return (stats.written * 1000) / Math.max(1, stats.lastWriteAt - stats.firstWriteAt);
}

function ferry(standIn: StandIn, csv: string, concurrency: number, maxRequestsPerSecond: number): FerryResult {
  process.stderr.write(`push bench: ferry c${concurrency} ceiling ${maxRequestsPerSecond} ${csv}\n`);
  const result = child('push/ferry-run.ts', [standIn.url, csv, concurrency, maxRequestsPerSecond]) as FerryResult;
  if (result.status !== 'succeeded') throw new Error(`ferry run ${result.status}: ${result.error ?? ''}`);
  return result;
}

async function httpLimit(url: string, connections: number): Promise<number> {
  const body = JSON.stringify({ id: 'x', sourceId: '00000000-0000-4000-8000-000000000000', public: true, objectTypeId: '00000000-0000-4000-8000-000000000000', name: 'x', fields: { stage: { value: 'Won', fieldType: 'string' } } });
  const result = await autocannon({ url: `${url}/v1/rows`, method: 'POST', body, headers: { 'content-type': 'application/json' }, connections, duration: 3 });
  return result.requests.average;
}

/** A control request on a fresh connection (a kept-alive one may have been closed by the stand-in meanwhile). */
function getJson(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve(JSON.parse(text)));
    }).on('error', reject);
  });
}

const ratio = (a: number, b: number) => +(a / b).toFixed(3);

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-push-bench-'));
  const standIn = await StandIn.start();
  const out: BenchRow[] = [];
  try {
    const csv = async (n: number) => {
      const path = join(dir, `deals-${n}.csv`);
      await writeDealsCsv(path, n);
      return path;
    };
    const main = await csv(rows);

    // Zero latency: ferry, the hand-written client, raw HTTP.
    await standIn.mode({ kind: 'instant' });
    const free = ferry(standIn, main, 16, 100_000);
    const ferryRate = await writeRate(standIn);
    await standIn.mode({ kind: 'instant' });
    child('push/baseline.ts', [standIn.url, main, 16]);
    const baselineRate = await writeRate(standIn);
    await standIn.mode({ kind: 'instant' });
    ferry(standIn, main, 16, 100_000); // the same records again: bodies must not change
    const { stats: again } = await standIn.stats();
    child('push/baseline.ts', [standIn.url, main, 16]);
    const { stats: afterBaseline } = await standIn.stats();
    out.push({ name: `zero latency: ferry ÷ hand-written client (c16, ${rows} rows)`, value: ratio(ferryRate, baselineRate), goal: '≥ 0.8' });
    out.push({ name: 'zero latency: bodies byte-identical (1 = yes)', value: again.written > 0 && afterBaseline.changedBodies === 0 ? 1 : 0, goal: '= 1' });
    out.push({ name: 'zero latency: ferry ÷ HTTP limit (autocannon, 16 connections)', value: ratio(ferryRate, await httpLimit(standIn.url, 16)) });
    out.push({ name: 'zero latency: ferry records/s', value: Math.round(ferryRate) });

    // Fixed latency: Little's law bound = concurrency / latency.
    for (const concurrency of [16, 64]) {
      const bound = concurrency / (LATENCY_MS / 1000);
      const n = Math.round(bound * 4);
      await standIn.mode({ kind: 'latency', ms: LATENCY_MS });
      ferry(standIn, await csv(n), concurrency, 100_000);
      out.push({ name: `${LATENCY_MS} ms latency: records/s ÷ concurrency/latency (c${concurrency})`, value: ratio(await writeRate(standIn), bound), goal: '≥ 0.95' });
    }

    // A 100 req/s token bucket, with the ceiling 10× too high and set right.
    for (const ceiling of [1000, 100]) {
      const n = 100 * bucketSeconds;
      await standIn.mode({ kind: 'bucket', perSecond: 100, burst: 10, retryAfterSeconds: 1 });
      ferry(standIn, await csv(n), 16, ceiling);
      const { stats } = await standIn.stats();
      const label = ceiling === 100 ? 'ceiling set right' : 'ceiling 10× too high';
      out.push({ name: `100 req/s bucket, ${label}: utilisation`, value: ratio(await writeRate(standIn), 100), goal: '≥ 0.95' });
      out.push({ name: `100 req/s bucket, ${label}: 429 share`, value: ratio(stats.throttled, stats.requests), goal: ceiling === 100 ? '= 0' : '≤ 0.02' });
    }

    // The fault mix, against the fault-free run above.
    await standIn.mode({ kind: 'faults', throttled: 0.1, failed: 0.05, dropped: 0.02, retryAfterSeconds: 1 });
    ferry(standIn, main, 16, 100_000);
    const { records, stats: faults } = await standIn.stats();
    const faultyRate = (records * 1000) / Math.max(1, faults.lastWriteAt - faults.firstWriteAt);
    out.push({ name: 'fault mix: throughput ÷ fault-free', value: ratio(faultyRate, ferryRate), goal: '≥ 0.3' });
    out.push({ name: 'fault mix: records landed ÷ records read (exactly once)', value: ratio(records, rows), goal: '= 1' });

    // Memory at two sizes, zero latency.
    await standIn.mode({ kind: 'instant' });
    const large = ferry(standIn, await csv(rows * 10), 16, 100_000);
    out.push({ name: `peak RSS MB (${rows} rows)`, value: Math.round(free.peakRssMb), goal: '≤ 200' });
    out.push({ name: `peak RSS MB (${rows * 10} rows)`, value: Math.round(large.peakRssMb), goal: '≤ 200' });
    out.push({ name: 'peak RSS ratio, 10× rows', value: ratio(large.peakRssMb, free.peakRssMb), goal: '≤ 1.1' });
  } finally {
    standIn.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out.map((row) => ({ ...row, ...(row.goal ? { ok: meets(row.value, row.goal) } : {}) }));
}

/** Does `value` meet a goal written as `≥ x`, `≤ x` or `= x`? */
export function meets(value: number, goal: string): boolean {
  const [op, text] = goal.split(' ');
  const target = Number(text);
  return op === '≥' ? value >= target : op === '≤' ? value <= target : value === target;
}
