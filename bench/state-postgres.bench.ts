/**
 * PostgreSQL state against SQLite state on the same run: `ferry run` of one
 * sync of N CRM deals into `ferry emulator` with no added latency (the state
 * store is then the only difference), first run and unchanged re-run, each
 * with a fresh state. A run's time is its process's life less that of
 * `ferry --version` (the CLI's start-up, the same for both). The target is
 * PostgreSQL time / SQLite time ≤ 1.5.
 *
 * Needs a PostgreSQL at FERRY_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * `npx tsx bench/state-postgres.bench.ts` prints the figures.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { FERRY_BIN, ferryEmulator, ferryRun, measuredNode } from './support/ferry-cli.js';

const ROWS = Number(process.env.BENCH_PG_ROWS ?? 5_000);
const PG_URL = process.env.FERRY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function writeCsv(path: string, rows: number): Promise<void> {
  const source = readFileSync(resolve(import.meta.dirname, '../../shared/datasets/crm-sales-opportunities/sales_pipeline.csv'), 'utf8');
  const [header, ...lines] = source.split('\r\n').filter((l) => l.length > 0);
  const out = createWriteStream(path);
  out.write(`${header}\n`);
  for (let i = 0; i < rows; i++) out.write(`${lines[i % lines.length]!.replace(/^[^,]+/, `D${i}`)}\n`);
  await new Promise<void>((r) => out.end(r));
}

function project(dir: string, name: string, baseUrl: string, apiKey: string, state: string, csv = 'deals.csv'): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `version: 1
service: { baseUrl: ${baseUrl}, apiKey: "${apiKey}", concurrency: 8, maxRequestsPerSecond: 100000 }
state: ${state}
syncs:
  - name: deals
    source: { type: csv, path: ${csv}, primaryKey: opportunity_id }
    target:
      type: row
      source: { name: crm-${name} }
      objectType: { name: deal }
      map: { id: opportunity_id, name: opportunity_id, public: true, fields: { stage: deal_stage, agent: sales_agent, value: close_value } }
`,
  );
  return file;
}

/** The CLI's own start-up and exit, ms: `ferry --version`'s life, the best of three. */
async function startUpMs(dir: string): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < 3; i++) best = Math.min(best, (await measuredNode(FERRY_BIN, ['--version'], { cwd: dir })).lifeMs);
  return best;
}

let startUp = 0;

/** Seconds of one `ferry run` beyond the CLI's start-up. */
async function timeRun(configFile: string): Promise<number> {
  const summary = await ferryRun(dirname(configFile), configFile);
  if (summary.status !== 'succeeded') throw new Error(`bench run ${summary.status}: ${summary.error ?? ''}`);
  return Math.max(0, summary.lifeMs - startUp) / 1000;
}

/** An unchanged re-run is short, so one slow moment skews it: the best of three. */
async function bestRerun(file: string): Promise<number> {
  return Math.min(await timeRun(file), await timeRun(file), await timeRun(file));
}

/**
 * First run and unchanged re-run of one project, into its own fresh emulator;
 * and the unchanged re-run of a one-row file on a state of its own
 * (`oneRowState`): what a run costs whatever its size (opening the store,
 * its lock and run records, the target's set-up), which a re-run of a few
 * thousand records is mostly made of.
 */
async function measure(dir: string, name: string, state: string, oneRowState: string): Promise<{ first: number; again: number; fixed: number }> {
  const emulator = await ferryEmulator(join(dir, `emulator-${name}.db`));
  try {
    const file = project(dir, name, emulator.url, emulator.apiKey, state);
    const first = await timeRun(file);
    const again = await bestRerun(file);
    const oneRow = project(dir, `${name}-one-row`, emulator.url, emulator.apiKey, oneRowState, 'one-row.csv');
    await timeRun(oneRow);
    return { first, again, fixed: await bestRerun(oneRow) };
  } finally {
    emulator.stop();
  }
}

export async function run(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-pg-bench-'));
  const schema = `ferry_bench_${randomBytes(4).toString('hex')}`;
  try {
    await writeCsv(join(dir, 'deals.csv'), ROWS);
    await writeCsv(join(dir, 'one-row.csv'), 1);
    startUp = await startUpMs(dir);
    const sqlite = await measure(dir, 'sqlite', '{ url: "sqlite:state/ferry.db" }', '{ url: "sqlite:state/one-row.db" }');
    const postgres = await measure(dir, 'postgres', `{ url: "${PG_URL}", schema: ${schema} }`, `{ url: "${PG_URL}", schema: ${schema}_one_row }`);
    const perRecord = (m: { again: number; fixed: number }) => (m.again - m.fixed) / (ROWS - 1);
    return {
      [`sqlite state: records/s (first run, ${ROWS})`]: Math.round(ROWS / sqlite.first),
      [`postgres state: records/s (first run, ${ROWS})`]: Math.round(ROWS / postgres.first),
      'postgres / sqlite time, first run (target ≤ 1.5)': +(postgres.first / sqlite.first).toFixed(2),
      'sqlite state: unchanged re-run, ms': Math.round(sqlite.again * 1000),
      'postgres state: unchanged re-run, ms': Math.round(postgres.again * 1000),
      'postgres / sqlite time, unchanged re-run (target ≤ 1.5)': +(postgres.again / sqlite.again).toFixed(2),
      // What the ratio above is made of: a fixed cost per run (PostgreSQL's connections and round trips) and a cost per record.
      'sqlite state: unchanged re-run of one row, ms': Math.round(sqlite.fixed * 1000),
      'postgres state: unchanged re-run of one row, ms': Math.round(postgres.fixed * 1000),
      [`postgres / sqlite time per record, unchanged re-run (${ROWS} rows less one)`]: +(perRecord(postgres) / perRecord(sqlite)).toFixed(2),
    };
  } finally {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    for (const name of [schema, `${schema}_one_row`]) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    await client.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [name, value] of Object.entries(await run())) console.log(`${name}  ${value}`);
}
