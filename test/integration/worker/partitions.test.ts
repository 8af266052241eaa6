/**
 * A partitioned sync (`partitions: { count }`) of a PostgreSQL table, on the
 * local PostgreSQL: three `ferry worker` processes take its slices from the
 * queue in parallel and the service receives each row exactly once; and a
 * plain `ferry run` goes through the slices one after another, each slice
 * keeping its own cursor, with the ledger shared between them.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { runProject } from '../../../src/pipeline/run-project.js';
import { createLogger } from '../../../src/runtime/logger.js';
import { openStateStore } from '../../../src/state/index.js';
import { PG_URL, dropSchemas, freshSchema, pgQuery } from '../../helpers/postgres.js';
import { startWriteCounter } from './write-counter.js';
import type { WriteCounter } from './write-counter.js';

const BIN = resolve(import.meta.dirname, '../../../bin/ferry.js');
const ROWS = 20_000;
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
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveRun, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
  return { child, done };
}

describe('a partitioned sync across three ferry workers', () => {
  let emulator: RunningEmulator;
  let counter: WriteCounter;
  let dir: string;
  const stateSchema = freshSchema('ferry_p');
  const sourceSchema = freshSchema('ferry_src');
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
    counter = await startWriteCounter(emulator.url);
    dir = mkdtempSync(join(tmpdir(), 'ferry-partitions-'));
    await createOrders(sourceSchema, ROWS);
    writeFileSync(join(dir, 'ferry.yaml'), projectYaml(counter.url, stateSchema, sourceSchema));
  });

  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await counter.close();
    await emulator.close();
    await dropSchemas(stateSchema, `${stateSchema}_queue`, sourceSchema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('lands every row exactly once, each slice a job of its own', async () => {
    const apiKey = emulator.devKey!;
    for (let i = 0; i < 3; i++) workers.push(spawnFerry(dir, apiKey, ['worker', '-c', 'ferry.yaml', '--concurrency', '2', '--lease-seconds', '10']).child);
    const queued = await spawnFerry(dir, apiKey, ['run', '--queue', '--wait', 'orders']).done;
    expect(queued.code, queued.stderr).toBe(0);
    for (let i = 0; i < SLICES; i++) expect(queued.stdout).toContain(`orders#${i}/${SLICES}`);

    // Each id written once service-side, and the end state equals the table.
    expect(counter.writes.size).toBe(ROWS);
    expect([...counter.writes.values()].every((n) => n === 1)).toBe(true);
    const rows = landed(emulator);
    expect(rows.size).toBe(ROWS);
    for (const id of [1, 2, 777, 12_345, ROWS]) expect(rows.get(String(id))).toBe(`stage-${id % 7}`);

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
