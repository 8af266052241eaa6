/**
 * Three `ferry worker`s against one, on a stand-in service with 20 ms of
 * latency per request and 16 requests in flight per worker: the same six
 * syncs queued at once, time until all have landed. Target: three workers
 * push ≥ 2.5× the records per second of one.
 *
 * Needs a PostgreSQL at FERRY_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * `npx tsx bench/workers.bench.ts` prints the figures.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startEmulator } from '../src/emulator/index.js';
import { loadProject } from '../src/runtime/project.js';
import { enqueueRuns } from '../src/worker/enqueue.js';

const PG_URL = process.env.FERRY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SYNCS = 6;
const ROWS = Number(process.env.BENCH_WORKER_ROWS ?? 600);
const LATENCY_MS = 20;
const CONCURRENCY = 16;
const BIN = resolve(import.meta.dirname, '../bin/ferry.js');

function writeProject(dir: string, baseUrl: string, apiKey: string, schema: string): string {
  const source = readFileSync(resolve(import.meta.dirname, '../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv'), 'utf8');
  const [header, ...lines] = source.split('\r\n').filter((l) => l.length > 0);
  mkdirSync(join(dir, 'data'), { recursive: true });
  const syncs: string[] = [];
  for (let s = 0; s < SYNCS; s++) {
    const rows = Array.from({ length: ROWS }, (_, i) => lines[i % lines.length]!.replace(/^[^,]+/, `S${s}D${i}`));
    writeFileSync(join(dir, `data/s${s}.csv`), [header, ...rows].join('\n') + '\n');
    syncs.push(`
  - name: s${s}
    source: { type: csv, path: data/s${s}.csv, primaryKey: opportunity_id }
    target: { type: row, source: { name: s${s} }, objectType: { name: deal }, map: { id: opportunity_id, name: opportunity_id, public: true, fields: { stage: deal_stage } } }`);
  }
  const file = join(dir, `ferry-${schema}.yaml`);
  writeFileSync(
    file,
    `version: 1
service: { baseUrl: ${baseUrl}, apiKey: "${apiKey}", concurrency: ${CONCURRENCY}, maxRequestsPerSecond: 100000 }
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
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      if (err.includes('"worker started"')) resolveStart(child);
    });
    child.once('exit', () => reject(new Error(`worker exited:\n${err}`)));
  });
}

/** Records per second of SYNCS × ROWS records pushed by `workers` workers. */
async function measure(dir: string, workers: number): Promise<number> {
  const emulator = await startEmulator({ db: ':memory:', faults: { latencyMs: LATENCY_MS } });
  const schema = `ferry_wbench_${randomBytes(4).toString('hex')}`;
  const children: ChildProcess[] = [];
  try {
    const configFile = writeProject(dir, emulator.url, emulator.devKey ?? '', schema);
    for (let i = 0; i < workers; i++) children.push(await startWorkerProcess(configFile));
    const config = await loadProject(configFile);
    const t = process.hrtime.bigint();
    const runs = await enqueueRuns(config, { names: [], wait: true, pollMs: 100 });
    const seconds = Number(process.hrtime.bigint() - t) / 1e9;
    const failed = runs.filter((r) => r.outcome?.status !== 'succeeded');
    if (failed.length > 0) throw new Error(`bench runs failed: ${JSON.stringify(failed)}`);
    return (SYNCS * ROWS) / seconds;
  } finally {
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : (c.once('exit', r), c.kill('SIGTERM'))))));
    await emulator.close();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_queue" CASCADE`);
    await client.end();
  }
}

export async function run(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-workers-bench-'));
  try {
    const one = await measure(dir, 1);
    const three = await measure(dir, 3);
    return {
      [`1 worker: records/s (${SYNCS} syncs × ${ROWS}, ${LATENCY_MS} ms latency, concurrency ${CONCURRENCY})`]: Math.round(one),
      ['3 workers: records/s (same)']: Math.round(three),
      '3 workers / 1 worker throughput (target ≥ 2.5)': +(three / one).toFixed(2),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [name, value] of Object.entries(await run())) console.log(`${name}  ${value}`);
}
