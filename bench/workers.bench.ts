/**
 * Three `ferry worker`s against one, on a stand-in service (a process of its
 * own) with 20 ms of latency per request and 16 requests in flight per worker:
 * the same syncs queued at once, each worker running one at a time. Target:
 * three workers push ≥ 2.5× the records per second of one.
 *
 * Throughput is what the stand-in saw, first record write to last (the push
 * phase, as in push.bench.ts): worker start, queue set-up and the wait for the
 * outcome are outside the window. The one-worker figure is also given against
 * its bound, concurrency ÷ latency = 800 records/s.
 *
 * Needs a PostgreSQL at FERRY_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * `npx tsx bench/workers.bench.ts` prints the figures. Sizes: BENCH_WORKER_SYNCS (default 6),
 * BENCH_WORKER_ROWS (records per sync, default 2000); BENCH_FERRY_BIN runs the workers from another build.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { writeDealsCsv } from './support/deals.js';
import { StandIn } from '../test/support/stand-in/client.js';

const PG_URL = process.env.FERRY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SYNCS = Number(process.env.BENCH_WORKER_SYNCS ?? 6);
const ROWS = Number(process.env.BENCH_WORKER_ROWS ?? 2000);
const LATENCY_MS = 20;
const CONCURRENCY = 16;
/** The ferry the workers run; BENCH_FERRY_BIN points at another build to compare two. */
const BIN = process.env.BENCH_FERRY_BIN ?? resolve(import.meta.dirname, '../bin/ferry.js');

async function writeProject(dir: string, baseUrl: string, schema: string): Promise<string> {
  const syncs: string[] = [];
  for (let s = 0; s < SYNCS; s++) {
    const csv = join(dir, `s${s}.csv`);
    await writeDealsCsv(csv, ROWS, `S${s}D`);
    syncs.push(`
  - name: s${s}
    source: { type: csv, path: ${JSON.stringify(csv)}, primaryKey: opportunity_id }
    target: { type: row, source: { name: s${s} }, objectType: { name: deal }, map: { id: opportunity_id, name: opportunity_id, public: true, fields: { stage: deal_stage } } }`);
  }
  const file = join(dir, `ferry-${schema}.yaml`);
  writeFileSync(
    file,
    `version: 1
service: { baseUrl: ${baseUrl}, apiKey: bench-key, concurrency: ${CONCURRENCY}, maxRequestsPerSecond: 100000 }
state: { url: "${PG_URL}", schema: ${schema} }
syncs:${syncs.join('')}
`,
  );
  return file;
}

function startWorkerProcess(configFile: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'worker', '-c', configFile, '--concurrency', '1'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, FERRY_LOG_LEVEL: 'info' } });
  return new Promise((resolveStart, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      if (err.includes('"worker started"')) resolveStart(child);
    });
    child.once('exit', () => reject(new Error(`worker exited:\n${err}`)));
  });
}

/** `ferry run --queue --wait --json`, as a user queues runs for the workers: each queued run and how it ended. */
async function queueAndWait(configFile: string): Promise<{ name: string; outcome?: { status: string } }[]> {
  // --wait exits with the runs' exit code: a failed run is read from the JSON, not from a rejected promise.
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, '-c', configFile, '--log-level', 'warn', 'run', '--queue', '--wait', '--json']).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return (JSON.parse(stdout) as { queued: { name: string; outcome?: { status: string } }[] }).queued;
}

/** CPU seconds a process has used so far (Linux /proc; 0 elsewhere). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return 0;
  }
}

/**
 * Records per second, as the stand-in saw them, of SYNCS × ROWS records pushed
 * by `workers` workers, and the workers' CPU milliseconds per 1000 records
 * (from their start to the end of the runs: a figure the machine's load does not skew).
 */
async function measure(dir: string, standIn: StandIn, workers: number): Promise<{ rate: number; cpuMsPerThousand: number }> {
  const schema = `ferry_wbench_${randomBytes(4).toString('hex')}`;
  const children: ChildProcess[] = [];
  try {
    const configFile = await writeProject(dir, standIn.url, schema);
    await standIn.mode({ kind: 'latency', ms: LATENCY_MS });
    for (let i = 0; i < workers; i++) children.push(await startWorkerProcess(configFile));
    const cpuBefore = children.reduce((sum, c) => sum + cpuSeconds(c.pid), 0);
    const runs = await queueAndWait(configFile);
    const failed = runs.filter((r) => r.outcome?.status !== 'succeeded');
    if (failed.length > 0) throw new Error(`bench runs failed: ${JSON.stringify(failed)}`);
    const { records } = await standIn.stats();
    if (records !== SYNCS * ROWS) throw new Error(`${records} records landed, not ${SYNCS * ROWS}`);
    const cpu = children.reduce((sum, c) => sum + cpuSeconds(c.pid), 0) - cpuBefore;
    return { rate: await standIn.writeRate(), cpuMsPerThousand: (cpu * 1e6) / (SYNCS * ROWS) };
  } finally {
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : (c.once('exit', r), c.kill('SIGTERM'))))));
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_queue" CASCADE`);
    await client.end();
  }
}

export async function run(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-workers-bench-'));
  const standIn = await StandIn.start();
  try {
    const one = await measure(dir, standIn, 1);
    const three = await measure(dir, standIn, 3);
    const bound = CONCURRENCY / (LATENCY_MS / 1000);
    return {
      [`1 worker: records/s (${SYNCS} syncs × ${ROWS}, ${LATENCY_MS} ms latency, concurrency ${CONCURRENCY})`]: Math.round(one.rate),
      [`1 worker ÷ concurrency/latency (${bound}/s)`]: +(one.rate / bound).toFixed(2),
      ['3 workers: records/s (same)']: Math.round(three.rate),
      '3 workers / 1 worker throughput (target ≥ 2.5)': +(three.rate / one.rate).toFixed(2),
      '1 worker: worker CPU ms per 1000 records': Math.round(one.cpuMsPerThousand),
      '3 workers: worker CPU ms per 1000 records': Math.round(three.cpuMsPerThousand),
    };
  } finally {
    standIn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [name, value] of Object.entries(await run())) console.log(`${name}  ${value}`);
}
