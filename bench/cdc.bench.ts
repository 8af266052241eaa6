/**
 * The postgres-cdc source end to end, as a user runs it: `node bin/ferry.js
 * run` as a child process (bench/support/ferry-cli.ts), into the stand-in
 * service (instant 201s, its own process), against the local PostgreSQL
 * (wal_level = logical, database `test`). Rows:
 *
 * - snapshot: the first run of a CDC sync over a 100k-row table (slot
 *   creation, exported snapshot in key-ordered chunks, push), records/s
 *   over the run's wall time; beside it the plain `postgres` source's full
 *   read of the same table into the same service, and the ratio;
 * - streaming: changes/s of a drain (`ferry run`) of 20k updates committed
 *   in 20 transactions, as the stand-in saw them (first write to last) and
 *   over the run's wall time (process start included);
 * - commit → 201 at idle: `ferry run --follow` at rest, then ~20 single-row
 *   INSERTs a second apart; for each, the time from sending the INSERT
 *   (autocommit) to the stand-in answering 201 for that row. Median and
 *   worst.
 *
 * `BENCH_ONLY=cdc npm run bench` runs these rows alone. Sizes: BENCH_CDC_ROWS
 * (default 100000), BENCH_CDC_CHANGES (default 20000), BENCH_CDC_COMMITS
 * (default 20). FERRY_BENCH_PG_URL names another server.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { StandIn } from '../test/support/stand-in/client.js';
import { FERRY_BIN, ferryRun as cliRun } from './support/ferry-cli.js';
import { judged, median, type BenchRow } from './support/rows.js';

const PG_URL = process.env.FERRY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROWS = Number(process.env.BENCH_CDC_ROWS ?? 100_000);
const CHANGES = Number(process.env.BENCH_CDC_CHANGES ?? 20_000);
const COMMITS = Number(process.env.BENCH_CDC_COMMITS ?? 20);
const SYNC = 'cdcbench';

const epochNow = (): number => performance.timeOrigin + performance.now();

function config(baseUrl: string, schema: string, table: string): string {
  const target = (source: string) => `    target:
      type: row
      source: { name: ${source} }
      objectType: { name: deal, fields: { amount: double, stage: string } }
      map: { id: $string(id), name: name, public: true, fields: { amount: amount, stage: stage } }`;
  return `version: 1
service: { baseUrl: ${baseUrl}, apiKey: bench-key }
state: { url: "sqlite:state.db" }
syncs:
  - name: ${SYNC}
    source: { type: postgres-cdc, url: "${PG_URL}", schema: ${schema}, table: ${table}, statusIntervalMs: 1000 }
${target('bench-cdc')}
  - name: plain
    source: { type: postgres, url: "${PG_URL}", schema: ${schema}, table: ${table}, primaryKey: id }
${target('bench-plain')}
`;
}

/** `ferry run <sync> --json` to its end (bin/ferry.js, bench/support/ferry-cli.ts): the summary's counts and the process's wall seconds. */
async function ferryRun(dir: string, sync: string): Promise<{ seconds: number; counts: Record<string, number> }> {
  const run = await cliRun(dir, join(dir, 'ferry.yaml'), { args: [sync] });
  if (run.status !== 'succeeded') throw new Error(`ferry run ${sync}: ${run.status} ${run.error ?? ''}`);
  return { seconds: run.lifeMs / 1000, counts: run.counts as unknown as Record<string, number> };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function run(): Promise<BenchRow[]> {
  const sql = new pg.Client({ connectionString: PG_URL });
  await sql.connect();
  const schema = `ferry_cdc_bench_${process.pid}`;
  const table = 'deals';
  const dir = mkdtempSync(join(tmpdir(), 'ferry-cdc-bench-'));
  const standIn = await StandIn.start();
  let follower: ChildProcess | undefined;
  const rows: BenchRow[] = [];
  try {
    const level = (await sql.query<{ wal_level: string }>('SHOW wal_level')).rows[0]?.wal_level;
    if (level !== 'logical') throw new Error(`wal_level is ${level}, not logical (.ci/run sets it)`);
    await sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    await sql.query(
      `CREATE TABLE ${schema}.${table} AS
         SELECT i::bigint AS id, 'deal ' || i AS name, (i % 100000)::numeric(12,2) / 7 AS amount,
                (ARRAY['open', 'won', 'lost'])[1 + i % 3] AS stage
           FROM generate_series(1, ${ROWS}) i`,
    );
    await sql.query(`ALTER TABLE ${schema}.${table} ADD PRIMARY KEY (id)`);
    await sql.query(`ANALYZE ${schema}.${table}`);
    writeFileSync(join(dir, 'ferry.yaml'), config(standIn.url, schema, table));
    const label = ROWS >= 1000 ? `${ROWS / 1000}k` : String(ROWS);

    // Snapshot (first run of the CDC sync) against the plain source's full read of the same table.
    await standIn.mode({ kind: 'instant' });
    const snapshot = await ferryRun(dir, SYNC);
    if (snapshot.counts.created !== ROWS) throw new Error(`the snapshot created ${snapshot.counts.created} of ${ROWS}`);
    const snapshotPush = await standIn.writeRate();
    await standIn.mode({ kind: 'instant' });
    const plain = await ferryRun(dir, 'plain');
    if (plain.counts.pushed !== ROWS) throw new Error(`the postgres source pushed ${plain.counts.pushed} of ${ROWS}`);
    const plainPush = await standIn.writeRate();
    const snapshotRate = ROWS / snapshot.seconds;
    const plainRate = ROWS / plain.seconds;
    rows.push(
      { name: `snapshot ${label} rows: records/s (ferry run, wall)`, value: Math.round(snapshotRate) },
      { name: `snapshot ${label} rows: records/s (stand-in, first to last write)`, value: Math.round(snapshotPush) },
      { name: `postgres source, same ${label} rows: records/s (ferry run, wall)`, value: Math.round(plainRate) },
      { name: `postgres source, same ${label} rows: records/s (stand-in)`, value: Math.round(plainPush) },
      { name: 'snapshot ÷ postgres source (wall)', value: +(snapshotRate / plainRate).toFixed(2) },
    );

    // Streaming: a drain of CHANGES updates committed in 20 transactions.
    const perTxn = Math.ceil(CHANGES / 20);
    for (let from = 1; from <= CHANGES; from += perTxn) {
      await sql.query(`UPDATE ${schema}.${table} SET amount = amount + 1, stage = 'moved' WHERE id BETWEEN ${from} AND ${Math.min(CHANGES, from + perTxn - 1)}`);
    }
    await standIn.mode({ kind: 'instant' });
    const drain = await ferryRun(dir, SYNC);
    if (drain.counts.pushed !== CHANGES) throw new Error(`the drain pushed ${drain.counts.pushed} of ${CHANGES}: ${JSON.stringify(drain.counts)}`);
    rows.push(
      { name: `streaming ${CHANGES} updates (20 transactions): changes/s (stand-in, first to last write)`, value: Math.round(await standIn.writeRate()) },
      { name: `streaming ${CHANGES} updates: changes/s (ferry run, wall, process start included)`, value: Math.round(CHANGES / drain.seconds) },
    );

    // Commit → 201 at idle under --follow.
    await standIn.mode({ kind: 'instant' }, { trace: true });
    follower = spawn(process.execPath, [FERRY_BIN, 'run', SYNC, '--follow'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, FERRY_LOG_LEVEL: 'warn' } });
    let stderr = '';
    follower.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    const answeredAt = async (id: string): Promise<number | undefined> => (await standIn.timeline()).writes.find(([written]) => written === id)?.[2];
    // Streaming and at rest: a first row has gone through.
    const warmId = ROWS + 1;
    await sql.query(`INSERT INTO ${schema}.${table} VALUES (${warmId}, 'warm-up', 1, 'open')`);
    await until('the follower to stream', async () => (await answeredAt(String(warmId))) !== undefined, 60_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${stderr}`);
    });
    const latencies: number[] = [];
    for (let i = 0; i < COMMITS; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const id = ROWS + 2 + i;
      const sent = epochNow();
      await sql.query(`INSERT INTO ${schema}.${table} VALUES (${id}, 'commit ${i}', ${i}, 'open')`);
      let answered: number | undefined;
      await until(`row ${id} in the stand-in`, async () => (answered = await answeredAt(String(id))) !== undefined, 30_000);
      latencies.push(answered! - sent);
    }
    const med = median(latencies);
    rows.push(
      { name: `commit → 201 at idle, --follow: median ms (${COMMITS} single-row commits)`, value: Math.round(med), goal: '≤ 2000' },
      { name: 'commit → 201 at idle, --follow: worst ms', value: Math.round(Math.max(...latencies)) },
    );
  } finally {
    if (follower && follower.exitCode === null) {
      const exited = new Promise((r) => follower!.once('exit', r));
      follower.kill('SIGTERM');
      await exited;
    }
    standIn.close();
    // The slot holds WAL on the server until dropped: state reset drops it and the publication ferry created.
    await new Promise((ok) => execFile(process.execPath, [FERRY_BIN, 'state', 'reset', SYNC, '--yes'], { cwd: dir }, ok));
    await sql.query(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active`, [`ferry_${SYNC}`]).catch(() => undefined);
    await sql.query(`DROP PUBLICATION IF EXISTS ferry_${SYNC}`).catch(() => undefined);
    await sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await sql.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return judged(rows);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const row of await run()) console.log(`${row.name.padEnd(80)} ${row.value}${row.goal ? `  (goal ${row.goal})` : ''}`);
}
