/**
 * Push at the service's bound: ferry against a stand-in service it does not
 * share a process with, each figure a ratio measured in this one run.
 *
 * - ferry ÷ a hand-written undici client (same bodies, same concurrency), zero latency
 * - ferry ÷ the stand-in's own HTTP limit (autocannon)
 * - efficiency ÷ concurrency/latency at 16 and 64, 20 ms latency, beside the client's own, sending
 *   trains and paced, and autocannon's
 * - rate-limit utilisation and 429 share against a 100 req/s bucket (ceiling 10× too high, and set right)
 * - fault-mix ÷ fault-free throughput, with exact landing checked
 * - peak RSS of the real `ferry run` at 100k and 1M rows, for a first run and for a no-op re-run of it
 *
 * Throughput is what the stand-in saw, first record write to last (the push
 * phase alone). Sizes: BENCH_PUSH_ZERO_ROWS (default 200000, the size the issue
 * measured at zero latency; BENCH_PUSH_ZERO_PAIRS alternating pairs of it, default 5), BENCH_PUSH_ROWS (default 20000: the byte-identity
 * check and the fault mix, which also runs 5× it), BENCH_PUSH_LATENCY_SECONDS
 * (default 10: rows = concurrency/latency × seconds), BENCH_PUSH_BUCKET_SECONDS
 * (default 15), BENCH_RSS_ROWS (default 100000; the large memory run is 10×).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { StandIn } from '../test/support/stand-in/client.js';
import { writeDealsCsv } from './push/deals.js';
import { ferryCliRun } from './push/ferry-cli.js';
import { measureHostSteal } from './host-steal.js';
import { compileScript, type CompiledScript } from '../test/support/compiled-script.js';

export interface BenchRow {
  name: string;
  value: number;
  /** What the issue asks for, as text (`≥ 0.8`). */
  goal?: string;
  ok?: boolean;
}

/** What a child run reports of its CPU: the whole process and its main thread, µs. */
interface CpuFigures {
  cpuUs: number;
  mainCpuUs: number;
}

interface FerryResult extends CpuFigures {
  seconds: number;
  counts: { pushed: number; failed: number };
  status: string;
  error?: string;
}

const tsx = resolve(import.meta.dirname, '../node_modules/tsx/dist/cli.mjs');
const rows = Number(process.env.BENCH_PUSH_ROWS ?? 20_000);
const zeroRows = Number(process.env.BENCH_PUSH_ZERO_ROWS ?? 200_000);
const latencySeconds = Number(process.env.BENCH_PUSH_LATENCY_SECONDS ?? 10);
const bucketSeconds = Number(process.env.BENCH_PUSH_BUCKET_SECONDS ?? 15);
const rssRows = Number(process.env.BENCH_RSS_ROWS ?? 100_000);
/** Alternating ferry / client pairs at zero latency (BENCH_PUSH_ZERO_PAIRS). */
const ZERO_PAIRS = Number(process.env.BENCH_PUSH_ZERO_PAIRS ?? 5);
const LATENCY_MS = 20;

/**
 * The scripts a run starts, compiled to plain JavaScript (test/support/compiled-script.ts):
 * ferry and the hand-written client both run under plain `node`, as a user's
 * `ferry run` and a script would. Through tsx the client lost ~12 % of its
 * records a second and ferry ~5 %, which flattered ferry's ratio.
 */
const compiled = new Map<string, CompiledScript>();

async function compileChildren(): Promise<void> {
  // src/ is TypeScript: a run from source needs tsx in the child.
  if (process.env.BENCH_FROM_SOURCE) return;
  for (const script of ['push/ferry-run.ts', 'push/baseline.ts']) compiled.set(script, await compileScript(resolve(import.meta.dirname, script)));
}

function child(script: string, args: (string | number)[]): unknown {
  const file = compiled.get(script)?.file;
  const command = file === undefined ? [tsx, resolve(import.meta.dirname, script)] : [file];
  const out = execFileSync(process.execPath, [...command, ...args.map(String)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop()!);
}

/** Records written per second as the stand-in saw them, first write to last (see StandIn.writeRate). */
function writeRate(standIn: StandIn): Promise<number> {
  return standIn.writeRate();
}

/** One `ferry run` in a fresh project and state. */
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

const ratio = (a: number, b: number) => +(a / b).toFixed(3);
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-push-bench-'));
  const standIn = await StandIn.start();
  const out: BenchRow[] = [];
  try {
    await compileChildren();
    const csv = async (n: number) => {
      const path = join(dir, `deals-${n}.csv`);
      await writeDealsCsv(path, n);
      return path;
    };
    const main = await csv(rows);

    // Zero latency, at the size the issue measured (a run of a second or two is mostly warm-up and slow start):
    // ferry, the hand-written client, raw HTTP.
    const zero = await csv(zeroRows);
    // Alternating pairs, the ratio the median of theirs: on a shared 2-core machine one pair swung from 0.67 to
    // 1.17 as the machine's speed changed under it (the client alone from 12,000 to 7,900 records/s).
    const pairs: { ferry: number; client: number }[] = [];
    // CPU µs per record of each run (the whole process, and its main thread): steadier than records/s when the
    // machine's speed changes under a pair, and it shows where ferry's extra work runs.
    const cpu = { ferry: [] as number[], ferryMain: [] as number[], client: [] as number[], clientMain: [] as number[] };
    const hostSteal = measureHostSteal();
    for (let pair = 0; pair < ZERO_PAIRS; pair++) {
      await standIn.mode({ kind: 'instant' });
      const ran = ferry(standIn, zero, 16, 100_000);
      const ferryRate = await writeRate(standIn);
      await standIn.mode({ kind: 'instant' });
      const sent = child('push/baseline.ts', [standIn.url, zero, 16]) as CpuFigures;
      pairs.push({ ferry: ferryRate, client: await writeRate(standIn) });
      cpu.ferry.push(ran.cpuUs / zeroRows);
      cpu.ferryMain.push(ran.mainCpuUs / zeroRows);
      cpu.client.push(sent.cpuUs / zeroRows);
      cpu.clientMain.push(sent.mainCpuUs / zeroRows);
    }
    pairs.sort((a, b) => a.ferry / a.client - b.ferry / b.client);
    const middle = pairs[Math.floor(pairs.length / 2)]!;
    const ferryRate = middle.ferry;
    const range = `${(pairs[0]!.ferry / pairs[0]!.client).toFixed(2)}-${(pairs.at(-1)!.ferry / pairs.at(-1)!.client).toFixed(2)}`;
    out.push({ name: `zero latency: ferry ÷ hand-written client (c16, ${zeroRows} rows; median of ${ZERO_PAIRS} pairs, ${range})`, value: ratio(middle.ferry, middle.client), goal: '≥ 0.8' });
    const [ferryCpu, ferryMain, clientCpu, clientMain] = [cpu.ferry, cpu.ferryMain, cpu.client, cpu.clientMain].map(median) as [number, number, number, number];
    out.push({ name: `zero latency: CPU µs per record, ferry (median; main thread ${ferryMain.toFixed(1)})`, value: +ferryCpu.toFixed(1) });
    out.push({ name: `zero latency: CPU µs per record, hand-written client (median; main thread ${clientMain.toFixed(1)})`, value: +clientCpu.toFixed(1) });
    out.push({ name: 'zero latency: CPU per record, ferry ÷ hand-written client', value: ratio(ferryCpu, clientCpu) });
    // How much of the machine its host took meanwhile: the pairs' spread is wider the more it took.
    out.push({ name: 'zero latency: share of CPU time the host took (steal) during the pairs', value: +hostSteal().toFixed(3) });
    out.push({ name: 'zero latency: ferry ÷ HTTP limit (autocannon, 16 connections)', value: ratio(ferryRate, await httpLimit(standIn.url, 16)) });
    // The same records twice more, ferry then the client: bodies must not change. The first is the fault mix's fault-free reference.
    await standIn.mode({ kind: 'instant' });
    ferry(standIn, main, 16, 100_000);
    const faultFree = new Map([[rows, await writeRate(standIn)]]);
    const { stats: again } = await standIn.stats();
    child('push/baseline.ts', [standIn.url, main, 16]);
    const { stats: afterBaseline } = await standIn.stats();
    out.push({ name: 'zero latency: bodies byte-identical (1 = yes)', value: again.written > 0 && afterBaseline.changedBodies === 0 ? 1 : 0, goal: '= 1' });
    out.push({ name: 'zero latency: ferry records/s', value: Math.round(ferryRate) });

    // Fixed latency: Little's law bound = concurrency / latency.
    for (const concurrency of [16, 64]) {
      const bound = concurrency / (LATENCY_MS / 1000);
      // Ten seconds by default: the slow start's first 0.1 s at a fraction of the bound is a fixed cost, which a
      // 4 s run weighed at 2-3 % (a sync of minutes does not notice it).
      const n = Math.round(bound * latencySeconds);
      const file = await csv(n);
      await standIn.mode({ kind: 'latency', ms: LATENCY_MS });
      ferry(standIn, file, concurrency, 100_000);
      const ferryAtLatency = await writeRate(standIn);
      out.push({ name: `${LATENCY_MS} ms latency: records/s ÷ concurrency/latency (c${concurrency})`, value: ratio(ferryAtLatency, bound), goal: '≥ 0.95' });
      // The whole run carries its start (the rate's slow start, code not yet optimised) at 1-2 % of ten seconds;
      // a sync of minutes runs at the settled figure.
      out.push({ name: `${LATENCY_MS} ms latency: the same after the run's first second (c${concurrency})`, value: ratio(await standIn.settledWriteRate(), bound) });
      // The bound assumes the stand-in holds each answer LATENCY_MS: what it held, body read to answer (see HoldTimer).
      const held = await standIn.holds();
      out.push({ name: `${LATENCY_MS} ms latency: the stand-in's mean hold, ms (c${concurrency}; 99th percentile ${held?.p99Ms.toFixed(2)})`, value: +(held?.meanMs ?? 0).toFixed(2) });
      // What the stand-in allows on this machine: the hand-written client, same bodies.
      await standIn.mode({ kind: 'latency', ms: LATENCY_MS });
      child('push/baseline.ts', [standIn.url, file, concurrency]);
      const handWritten = await writeRate(standIn);
      out.push({ name: `${LATENCY_MS} ms latency: hand-written client ÷ concurrency/latency (c${concurrency}, reference)`, value: ratio(handWritten, bound) });
      out.push({ name: `${LATENCY_MS} ms latency: hand-written client, after its first second (c${concurrency}, reference)`, value: ratio(await standIn.settledWriteRate(), bound) });
      out.push({ name: `${LATENCY_MS} ms latency: ferry ÷ hand-written client (c${concurrency})`, value: ratio(ferryAtLatency, handWritten) });
      // The same client spacing its requests as ferry does: what a minimal client reaches on this machine without trains.
      await standIn.mode({ kind: 'latency', ms: LATENCY_MS });
      child('push/baseline.ts', [standIn.url, file, concurrency, 'paced']);
      const paced = await writeRate(standIn);
      out.push({ name: `${LATENCY_MS} ms latency: paced hand-written client ÷ concurrency/latency (c${concurrency}, reference)`, value: ratio(paced, bound) });
      out.push({ name: `${LATENCY_MS} ms latency: ferry ÷ paced hand-written client (c${concurrency})`, value: ratio(ferryAtLatency, paced) });
      // A lean HTTP load tool on raw sockets: what the stand-in and the machine allow a client that does nearly
      // nothing per request. Both undici clients (ferry's and the hand-written one) wait a loop turn before reusing
      // a kept-alive connection (undici's guard against a server that closed it, GHSA-35p6-xmwp-9g52).
      // Against a stand-in of its own: after autocannon's 64 connections, the shared one let ferry use only
      // 0.92-0.93 of the token bucket that follows (1.00 against a fresh one, four runs each).
      const own = await StandIn.start();
      let lean: number;
      try {
        await own.mode({ kind: 'latency', ms: LATENCY_MS });
        lean = await httpLimit(own.url, concurrency);
      } finally {
        own.close();
      }
      out.push({ name: `${LATENCY_MS} ms latency: autocannon ÷ concurrency/latency (c${concurrency}, reference)`, value: ratio(lean, bound) });
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

    // The fault mix, against the fault-free rate above. A record refused k times in a row waits k × Retry-After
    // (1 s) whatever the client does, and among 20,000 records some are refused four or five times: the run's
    // last seconds are that fixed tail. So the ratio is given for the bench's size and for a run 5× as long, where
    // the tail weighs as it does in a sync that runs longer than two seconds; the goal is judged on the latter.
    for (const n of [rows, rows * 5]) {
      const file = n === rows ? main : await csv(n);
      if (!faultFree.has(n)) {
        await standIn.mode({ kind: 'instant' });
        ferry(standIn, file, 16, 100_000);
        faultFree.set(n, await writeRate(standIn));
      }
      await standIn.mode({ kind: 'faults', throttled: 0.1, failed: 0.05, dropped: 0.02, retryAfterSeconds: 1 });
      ferry(standIn, file, 16, 100_000);
      const { records, stats: faults } = await standIn.stats();
      const faultyRate = (records * 1000) / Math.max(1, faults.lastWriteAt - faults.firstWriteAt);
      out.push({ name: `fault mix (${n} rows): throughput ÷ fault-free (same rows)`, value: ratio(faultyRate, faultFree.get(n)!), ...(n === rows ? {} : { goal: '≥ 0.3' }) });
      out.push({ name: `fault mix (${n} rows): records landed ÷ records read (exactly once)`, value: ratio(records, n), goal: '= 1' });
    }

    // Memory at the two sizes the goal names (BENCH_RSS_ROWS and 10×), zero latency: a first run, then a no-op
    // re-run of the same file on its state (the stand-in is not reset in between, so the source and object type
    // keep their ids). Each is the real `ferry run` (ferry-cli.ts), its peak the kernel's high-water mark.
    await standIn.mode({ kind: 'instant' });
    const peaks = [];
    for (const n of [rssRows, rssRows * 10]) {
      const state = mkdtempSync(join(dir, 'state-'));
      const file = await csv(n);
      const run = async (label: string) => {
        process.stderr.write(`push bench: ferry run (CLI) ${label}, ${n} rows\n`);
        const result = await ferryCliRun(state, file, standIn.url, { concurrency: 16, maxRequestsPerSecond: 100_000 });
        if (result.status !== 'succeeded') throw new Error(`ferry run ${result.status} (${label}, ${n} rows)`);
        return result;
      };
      const first = await run('first run');
      const noop = await run('no-op re-run');
      if (noop.counts.unchanged !== n) throw new Error(`the re-run found ${noop.counts.unchanged} of ${n} records unchanged`);
      peaks.push({ first: first.peakRssMb, noop: noop.peakRssMb });
    }
    const [small, large] = peaks as [{ first: number; noop: number }, { first: number; noop: number }];
    out.push({ name: `peak RSS MB (${rssRows} rows)`, value: Math.round(small.first), goal: '≤ 200' });
    out.push({ name: `peak RSS MB (${rssRows * 10} rows)`, value: Math.round(large.first), goal: '≤ 200' });
    out.push({ name: 'peak RSS ratio, 10× rows', value: ratio(large.first, small.first), goal: '≤ 1.1' });
    out.push({ name: `peak RSS MB, no-op re-run (${rssRows} rows)`, value: Math.round(small.noop), goal: '≤ 200' });
    out.push({ name: `peak RSS MB, no-op re-run (${rssRows * 10} rows)`, value: Math.round(large.noop), goal: '≤ 200' });
    out.push({ name: 'peak RSS ratio, no-op re-run, 10× rows', value: ratio(large.noop, small.noop), goal: '≤ 1.1' });
  } finally {
    standIn.close();
    for (const script of compiled.values()) script.remove();
    compiled.clear();
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
