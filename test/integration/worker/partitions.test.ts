/**
 * A partitioned sync (`partitions: { count }`) of a PostgreSQL table, on the
 * local PostgreSQL: three `ferry worker` processes take the slices of a
 * 100k-row table from the queue in parallel and the service receives each
 * row exactly once; its schedule fans out into one job per slice; and a
 * plain `ferry run` goes through the slices one after another, each slice
 * keeping its own cursor, with the ledger shared between them.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StandInService } from '../../support/stand-in/service.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { runProject } from '../../../src/pipeline/run-project.js';
import { createLogger } from '../../../src/runtime/logger.js';
import { openStateStore } from '../../../src/state/index.js';
import { PG_URL, dropSchemas, freshSchema, pgQuery } from '../../helpers/postgres.js';
import { startWriteCounter } from './write-counter.js';
import type { WriteCounter } from './write-counter.js';

const BIN = resolve(import.meta.dirname, '../../../bin/ferry.js');
const ROWS = 100_000;
const SLICES = 6;

function projectYaml(baseUrl: string, stateSchema: string, sourceSchema: string, extra = ''): string {
  return `version: 1
service: { baseUrl: ${baseUrl}, apiKey: "\${FERRY_API_KEY}", concurrency: 16, maxRequestsPerSecond: 100000 }
state: { url: "${PG_URL}", schema: ${stateSchema} }
syncs:
  - name: orders
    source: { type: postgres, url: "${PG_URL}", schema: ${sourceSchema}, table: orders }
    partitions: { count: ${SLICES} }${extra}
    target:
      type: row
      source: { name: orders }
      objectType: { name: order }
      map: { id: "$string(id)", name: "$string(id)", public: true, fields: { stage: stage } }
`;
}

async function createOrders(schema: string, rows: number): Promise<void> {
  await pgQuery(`CREATE SCHEMA "${schema}"`);
  await pgQuery(`CREATE TABLE "${schema}".orders (id integer PRIMARY KEY, stage text NOT NULL, updated_at bigint NOT NULL)`);
  await pgQuery(`INSERT INTO "${schema}".orders SELECT i, 'stage-' || (i % 7), i FROM generate_series(1, $1::int) AS i`, [rows]);
}

/** Rows the emulator holds for the `orders` source, by remote id, with their stage. */
function landed(emulator: RunningEmulator): Map<string, unknown> {
  const rows = emulator.store.db
    .prepare("SELECT r.remote_id AS id, r.data AS body FROM records r JOIN sources s ON s.id = r.source_id WHERE s.name = 'orders' AND r.deleted_ms IS NULL")
    .all() as { id: string; body: string }[];
  return new Map(rows.map((r) => [r.id, (JSON.parse(r.body) as { fields?: { stage?: { value?: unknown } } }).fields?.stage?.value]));
}

function spawnFerry(dir: string, apiKey: string, args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, FERRY_API_KEY: apiKey }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveRun, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
  return { child, done };
}

describe('a partitioned sync across three ferry workers', () => {
  // The stand-in service (not the emulator) keeps 100k records cheaply and counts each record's writes.
  let service: StandInService;
  let dir: string;
  const stateSchema = freshSchema('ferry_p');
  const sourceSchema = freshSchema('ferry_src');
  const workers: ChildProcess[] = [];
  const apiKey = 'partitions-test-key';

  /** Writes the service received per record id, and the stage each record ended with. */
  const landedAtStandIn = () =>
    new Map([...service.records.values()].map((r) => {
      const body = JSON.parse(r.body) as { id: string; fields?: { stage?: { value?: unknown } } };
      return [body.id, { writes: r.writes, stage: body.fields?.stage?.value }];
    }));

  beforeAll(async () => {
    service = await new StandInService().start();
    dir = mkdtempSync(join(tmpdir(), 'ferry-partitions-'));
    await createOrders(sourceSchema, ROWS);
    // A schedule that does not come due during the test: the test fires it itself, as pg-boss's cron does.
    writeFileSync(join(dir, 'ferry.yaml'), projectYaml(service.url, stateSchema, sourceSchema, '\n    schedule: "0 0 1 1 *"'));
  });

  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await service.close();
    await dropSchemas(stateSchema, `${stateSchema}_queue`, sourceSchema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('lands every row exactly once, each slice a job of its own', async () => {
    for (let i = 0; i < 3; i++) workers.push(spawnFerry(dir, apiKey, ['worker', '-c', 'ferry.yaml', '--concurrency', '2', '--lease-seconds', '10']).child);
    const queued = await spawnFerry(dir, apiKey, ['run', '--queue', '--wait', 'orders']).done;
    expect(queued.code, queued.stderr).toBe(0);
    for (let i = 0; i < SLICES; i++) expect(queued.stdout).toContain(`orders#${i}/${SLICES}`);

    // Each id written once service-side, and the end state equals the table.
    const rows = landedAtStandIn();
    expect(rows.size).toBe(ROWS);
    expect([...rows.values()].every((r) => r.writes === 1)).toBe(true);
    for (let id = 1; id <= ROWS; id++) expect(rows.get(String(id))?.stage).toBe(`stage-${id % 7}`);

    // One job per slice, spread over more than one worker; one ledger for the sync, a cursor row per slice.
    const jobs = await pgQuery<{ key: string; worker: string }>(
      `SELECT singleton_key AS key, output->>'worker' AS worker FROM "${stateSchema}_queue".job WHERE name = 'ferry-sync-orders' AND state = 'completed'`,
    );
    expect(jobs.map((j) => j.key).sort()).toEqual(Array.from({ length: SLICES }, (_, i) => `orders#${i}/${SLICES}`).sort());
    expect(new Set(jobs.map((j) => j.worker)).size).toBeGreaterThan(1);
    const store = await openStateStore(PG_URL, { schema: stateSchema });
    try {
      expect(await store.countLive('orders')).toBe(ROWS);
      const runs = await store.runs({ limit: 100 });
      expect(runs.filter((r) => r.status === 'succeeded').map((r) => r.sync).sort()).toEqual(jobs.map((j) => j.key).sort());
    } finally {
      await store.close();
    }
  }, 240_000);

  it('fans a scheduled run out into one job per slice, taken by several workers', async () => {
    const queue = 'ferry-sync-orders';
    const before = new Set((await pgQuery<{ id: string }>(`SELECT id FROM "${stateSchema}_queue".job WHERE name = $1`, [queue])).map((r) => r.id));
    // What pg-boss's cron sends when the schedule comes due: one job with the schedule's data, for the whole sync.
    const boss = new PgBoss({ connectionString: PG_URL, schema: `${stateSchema}_queue`, supervise: false, schedule: false });
    await boss.start();
    try {
      const [schedule] = (await boss.getSchedules()).filter((s) => s.name === queue);
      expect(schedule?.data).toEqual({ kind: 'sync', name: 'orders' });
      await boss.send(queue, schedule!.data as object, schedule!.options ?? {});
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }

    const jobsOfThisRun = async () =>
      (await pgQuery<{ id: string; key: string; state: string; worker: string | null; queued: unknown }>(
        `SELECT id, singleton_key AS key, state, output->>'worker' AS worker, output->'queued' AS queued FROM "${stateSchema}_queue".job WHERE name = $1`,
        [queue],
      )).filter((j) => !before.has(j.id));
    let jobs = await jobsOfThisRun();
    for (let i = 0; i < 600 && (jobs.length < SLICES + 1 || jobs.some((j) => j.state !== 'completed')); i++) {
      await new Promise((r) => setTimeout(r, 100));
      jobs = await jobsOfThisRun();
    }
    const fanOutJob = jobs.find((j) => j.key === 'orders');
    const slices = jobs.filter((j) => j.key !== 'orders');
    expect((fanOutJob?.queued as { key: string }[] | undefined)?.map((q) => q.key)).toEqual(Array.from({ length: SLICES }, (_, i) => `orders#${i}/${SLICES}`));
    expect(slices.map((j) => j.key).sort()).toEqual(Array.from({ length: SLICES }, (_, i) => `orders#${i}/${SLICES}`).sort());
    expect(slices.every((j) => j.state === 'completed')).toBe(true);
    expect(new Set(slices.map((j) => j.worker)).size).toBeGreaterThan(1);
    // Nothing changed in the table: the slices found every row unchanged, and nothing was written twice.
    expect([...landedAtStandIn().values()].every((r) => r.writes === 1)).toBe(true);
  }, 120_000);
});

describe('a partitioned sync run locally', () => {
  let emulator: RunningEmulator;
  let counter: WriteCounter;
  let dir: string;
  const stateSchema = freshSchema('ferry_p');
  const sourceSchema = freshSchema('ferry_src');
  const rows = 1_200;

  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
    counter = await startWriteCounter(emulator.url);
    dir = mkdtempSync(join(tmpdir(), 'ferry-partitions-'));
    await createOrders(sourceSchema, rows);
    writeFileSync(join(dir, 'ferry.yaml'), projectYaml(counter.url, stateSchema, sourceSchema, '\n    incremental: { cursor: updated_at }'));
    process.env.FERRY_API_KEY = emulator.devKey!;
  });

  afterAll(async () => {
    delete process.env.FERRY_API_KEY;
    await counter.close();
    await emulator.close();
    await dropSchemas(stateSchema, sourceSchema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the slices one after another, each resuming from its own cursor', async () => {
    const logger = createLogger({ level: 'warn' });
    const run = () => runProject({ configFile: join(dir, 'ferry.yaml'), syncNames: [], logger });
    const first = await run();
    expect(first.map((s) => s.sync)).toEqual(Array.from({ length: SLICES }, (_, i) => `orders#${i}/${SLICES}`));
    expect(first.every((s) => s.status === 'succeeded')).toBe(true);
    expect(first.reduce((n, s) => n + s.counts.created, 0)).toBe(rows);
    expect(Math.min(...first.map((s) => s.counts.created))).toBeGreaterThan(0);
    expect(counter.writes.size).toBe(rows);

    // Ten rows change: each slice reads only what moved past its own cursor.
    await pgQuery(`UPDATE "${sourceSchema}".orders SET stage = 'won', updated_at = updated_at + 1000000 WHERE id % 120 = 0`);
    const second = await run();
    expect(second.reduce((n, s) => n + s.counts.read, 0)).toBe(10);
    expect(second.reduce((n, s) => n + s.counts.updated, 0)).toBe(10);
    expect([...counter.writes.values()].reduce((a, b) => a + b, 0)).toBe(rows + 10);
    expect(landed(emulator).get('120')).toBe('won');
  }, 60_000);
});
