/**
 * The request-rate budget shared per API key, on the local PostgreSQL: one
 * row per key (hashed), drawn on by every worker, and by one-shot runs and
 * exports whose state is on the same database.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { runExports } from '../../../src/export/run-exports.js';
import { runProject } from '../../../src/pipeline/run-project.js';
import { createLogger } from '../../../src/runtime/logger.js';
import { SharedRateBudget } from '../../../src/runtime/rate-budget.js';
import { PG_URL, dropSchemas, freshSchema, pgQuery } from '../../helpers/postgres.js';
import { startWriteCounter } from '../worker/write-counter.js';
import type { WriteCounter } from '../worker/write-counter.js';

describe('SharedRateBudget', () => {
  const schema = freshSchema('ferry_rb');
  const open: SharedRateBudget[] = [];
  afterAll(async () => {
    for (const budget of open) await budget.close();
    await dropSchemas(schema);
  });

  it('is one bucket per API key across workers, and never stores the key', async () => {
    await pgQuery(`CREATE SCHEMA "${schema}"`);
    // A slow refill (one token per 20 s): what one worker took, another cannot take again.
    const [a, b, other] = await Promise.all([
      SharedRateBudget.open(PG_URL, schema, 'key-one-secret', 0.05),
      SharedRateBudget.open(PG_URL, schema, 'key-one-secret', 0.05),
      SharedRateBudget.open(PG_URL, schema, 'key-two-secret', 0.05),
    ]);
    open.push(a, b, other);
    expect(await a.take(5)).toBe(1);
    expect(await b.take(5)).toBe(0);
    expect(await other.take(5)).toBe(1);
    const rows = await pgQuery<{ key: string }>(`SELECT key FROM "${schema}".rate_budget`);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.key).join()).not.toContain('secret');
  });

  it('opens in many processes at once on a schema that has no table yet', async () => {
    // CREATE TABLE IF NOT EXISTS racing itself fails in the loser ("type already exists");
    // workers starting together must take turns instead. Forty fresh schemas, eight openers each:
    // the old code lost about one opener in 130 here.
    const schemas = Array.from({ length: 40 }, () => freshSchema('ferry_rb_race'));
    try {
      for (const fresh of schemas) {
        await pgQuery(`CREATE SCHEMA "${fresh}"`);
        const opened = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => SharedRateBudget.open(PG_URL, fresh, `key-${i % 2}`, 5)));
        for (const result of opened) if (result.status === 'fulfilled') await result.value.close();
        expect(opened.filter((result) => result.status === 'rejected').map((result) => String(result.reason))).toEqual([]);
        const rows = await pgQuery<{ key: string }>(`SELECT key FROM "${fresh}".rate_budget`);
        expect(rows).toHaveLength(2);
      }
    } finally {
      await dropSchemas(...schemas);
    }
  });

  it('hands out whole tokens from a full bucket of one second', async () => {
    const budget = await SharedRateBudget.open(PG_URL, schema, 'key-three', 50);
    open.push(budget);
    const granted = await budget.take(500);
    expect(granted).toBeGreaterThanOrEqual(50);
    expect(granted).toBeLessThanOrEqual(51);
    expect(Number.isInteger(granted)).toBe(true);
  });

  it('opens a table already made without waiting for the setup lock', async () => {
    const made = freshSchema('ferry_rb_made');
    const holder = new pg.Client({ connectionString: PG_URL });
    await holder.connect();
    try {
      await pgQuery(`CREATE SCHEMA "${made}"`);
      await (await SharedRateBudget.open(PG_URL, made, 'key-five', 50)).close();
      // Another process holds the lock, as one creating the table would: an open that finds it made does not wait.
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ferry-rate-budget-setup:${made}`]);
      const budget = await SharedRateBudget.open(PG_URL, made, 'key-five', 50);
      try {
        expect(await budget.take(5)).toBe(5);
      } finally {
        await budget.close();
      }
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      await dropSchemas(made);
    }
  });

  it('adds the granted column to a table made before it, keeping its rows, and counts from there', async () => {
    const older = freshSchema('ferry_rb_old');
    try {
      await pgQuery(`CREATE SCHEMA "${older}"`);
      await pgQuery(`CREATE TABLE "${older}".rate_budget (key text PRIMARY KEY, tokens double precision NOT NULL, refilled_at timestamptz NOT NULL)`);
      await pgQuery(`INSERT INTO "${older}".rate_budget VALUES ('kept', 1, now())`);
      // Twice: the second open finds the column and leaves the table alone.
      for (let i = 0; i < 2; i++) {
        const budget = await SharedRateBudget.open(PG_URL, older, 'key-four', 50);
        try {
          expect(await budget.take(5)).toBe(5);
        } finally {
          await budget.close();
        }
      }
      const rows = await pgQuery<{ key: string; granted: string }>(`SELECT key, granted FROM "${older}".rate_budget ORDER BY key = 'kept' DESC`);
      expect(rows.map((r) => [r.key === 'kept' ? 'kept' : 'new', Number(r.granted)])).toEqual([['kept', 0], ['new', 10]]);
    } finally {
      await dropSchemas(older);
    }
  });
});

describe('one-shot runs and exports with PostgreSQL state', () => {
  const stateSchema = freshSchema('ferry_rb');
  let emulator: RunningEmulator;
  let counter: WriteCounter;
  let dir: string;

  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
    counter = await startWriteCounter(emulator.url);
    dir = mkdtempSync(join(tmpdir(), 'ferry-budget-'));
    writeFileSync(join(dir, 'deals.csv'), ['id,stage', ...Array.from({ length: 40 }, (_, i) => `d${i},stage-${i % 3}`)].join('\n') + '\n');
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service: { baseUrl: ${counter.url}, apiKey: "\${FERRY_API_KEY}", concurrency: 4, maxRequestsPerSecond: 50 }
state: { url: "${PG_URL}", schema: ${stateSchema} }
syncs:
  - name: deals
    source: { type: csv, path: deals.csv, primaryKey: id }
    target: { type: row, source: { name: deals }, objectType: { name: deal }, map: { id: id, name: id, public: true, fields: { stage: stage } } }
exports:
  - { name: rows-out, resource: rows, destination: { type: file, path: out/rows.csv } }
`,
    );
    process.env.FERRY_API_KEY = emulator.devKey!;
  });

  afterAll(async () => {
    delete process.env.FERRY_API_KEY;
    await counter.close();
    await emulator.close();
    await dropSchemas(stateSchema);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Tokens the API key's shared budget has handed out so far. */
  async function granted(): Promise<number> {
    const rows = await pgQuery<{ granted: string }>(`SELECT granted FROM "${stateSchema}".rate_budget`);
    expect(rows).toHaveLength(1);
    return Number(rows[0]!.granted);
  }

  it('draw every request on the API key\'s shared budget, as workers do', async () => {
    const logger = createLogger({ level: 'warn' });
    const [run] = await runProject({ configFile: join(dir, 'ferry.yaml'), syncNames: [], logger });
    expect(run).toMatchObject({ status: 'succeeded', counts: { created: 40 } });
    const afterRun = await granted();
    expect(counter.requests).toBeGreaterThan(40);
    expect(afterRun).toBeGreaterThanOrEqual(counter.requests);

    const before = counter.requests;
    const [exported] = await runExports({ configFile: join(dir, 'ferry.yaml'), names: ['rows-out'], logger });
    expect(exported).toMatchObject({ status: 'succeeded', exported: 40 });
    expect(counter.requests).toBeGreaterThan(before);
    // The export's process has a budget handle of its own: it took at least one token per request it sent.
    expect((await granted()) - afterRun).toBeGreaterThanOrEqual(counter.requests - before);
  }, 60_000);
});
