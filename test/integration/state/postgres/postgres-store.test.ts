/**
 * What only the PostgreSQL backend has: first use by many processes at once,
 * a batch that fails half-way, a newer schema, and a password that must never
 * show in an error.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../../../src/state/index.js';
import type { StateStore } from '../../../../src/state/index.js';
import { PG_SCHEMA_VERSION } from '../../../../src/state/postgres/migrations.js';
import { PgLedger } from '../../../../src/state/postgres/ledger.js';
import { PG_URL, dropSchemas, freshSchema, pgQuery } from '../../../helpers/postgres.js';

const schemas: string[] = [];
const stores: StateStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  await dropSchemas(...schemas.splice(0));
});

async function open(schema: string, options: { batchSize?: number } = {}): Promise<StateStore> {
  const store = await openStateStore(PG_URL, { ...options, schema });
  stores.push(store);
  return store;
}

function schemaName(): string {
  const schema = freshSchema();
  schemas.push(schema);
  return schema;
}

describe('PostgreSQL state store', () => {
  it('migrates once when many stores open a fresh schema at the same time', async () => {
    const schema = schemaName();
    const opened = await Promise.all(Array.from({ length: 8 }, () => open(schema)));
    await Promise.all(opened.map((store, i) => store.checkpoint(`sync-${i}`, { value: i })));
    const version = await pgQuery<{ value: string }>(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`);
    expect(version).toEqual([{ value: String(PG_SCHEMA_VERSION) }]);
    expect(await opened[0]!.syncs()).toHaveLength(8);
  });

  it('writes a large batch of acknowledgements with few statements and keeps their order per record', async () => {
    const schema = schemaName();
    const store = await open(schema, { batchSize: 10_000 });
    for (let i = 0; i < 3000; i++) await store.recordAcknowledged({ sync: 'deals', remoteId: `id-${i}`, fingerprint: 'v1', recordId: `r-${i}` });
    // Same record again, a failure and a delete in the same batch: later writes win, as in SQLite.
    await store.recordAcknowledged({ sync: 'deals', remoteId: 'id-1', fingerprint: 'v2', recordId: 'r-1' });
    await store.recordFailure({ sync: 'deals', runId: null, remoteId: 'id-2', origin: null, kind: 'rejected', reason: 'no', status: 422, errorBody: null, body: null, sourceRecord: null });
    await store.recordDeleted('deals', 'id-3');
    await store.recordAcknowledged({ sync: 'deals', remoteId: 'id-2', fingerprint: 'fixed', recordId: 'r-2' });
    await store.checkpoint('deals', { value: 3000 });
    expect(await store.countLive('deals')).toBe(2999);
    expect((await store.ledgerEntry('deals', 'id-1'))?.fingerprint).toBe('v2');
    expect(await store.ledgerEntry('deals', 'id-2')).toMatchObject({ status: 'pushed', fingerprint: 'fixed', attempts: 0 });
    expect(await store.failureCount('deals')).toBe(0);
  });

  it('rolls the whole batch back and keeps it buffered when a commit fails half-way', async () => {
    const schema = schemaName();
    const store = await open(schema);
    await store.checkpoint('deals', { value: 1 });
    await pgQuery(`CREATE FUNCTION "${schema}".boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$`);
    await pgQuery(`CREATE TRIGGER boom BEFORE INSERT ON "${schema}".cursors FOR EACH ROW EXECUTE FUNCTION "${schema}".boom()`);
    await pgQuery(`CREATE TRIGGER boom_update BEFORE UPDATE ON "${schema}".cursors FOR EACH ROW EXECUTE FUNCTION "${schema}".boom()`);
    await store.recordAcknowledged({ sync: 'deals', remoteId: 'a', fingerprint: 'f', recordId: 'r' });
    await expect(store.checkpoint('deals', { value: 2 })).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR', message: expect.stringContaining('disk on fire') });
    const reader = await open(schema);
    expect(await reader.cursor('deals')).toEqual({ value: 1 });
    expect((await reader.fingerprints('deals', ['a'])).size).toBe(0);
    await pgQuery(`DROP TRIGGER boom ON "${schema}".cursors; DROP TRIGGER boom_update ON "${schema}".cursors`);
    await store.checkpoint('deals', { value: 2 });
    expect(await reader.cursor('deals')).toEqual({ value: 2 });
    expect((await reader.fingerprints('deals', ['a'])).size).toBe(1);
  });

  it('commits a full batch without holding up the acknowledgements, and waits only when the database falls four batches behind', async () => {
    const schema = schemaName();
    const store = await open(schema, { batchSize: 5 });
    await store.flush(); // migrated
    const ack = (i: number) => store.recordAcknowledged({ sync: 'deals', remoteId: `id-${i}`, fingerprint: 'f', recordId: `r-${i}` });
    // Another session holds the ledger: every commit blocks until it lets go.
    const blocker = new pg.Client({ connectionString: PG_URL });
    await blocker.connect();
    try {
      await blocker.query(`BEGIN; LOCK TABLE "${schema}".ledger IN ACCESS EXCLUSIVE MODE`);
      for (let i = 0; i < 19; i++) await ack(i); // a commit started at the 5th and is blocked; these do not wait for it
      let backlogged = false;
      const twentieth = ack(19).then(() => (backlogged = true));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(backlogged).toBe(false); // four batches behind: this one waits
      await blocker.query('COMMIT');
      await twentieth;
    } finally {
      await blocker.end();
    }
    await store.checkpoint('deals', { value: 20 });
    expect(await store.countLive('deals')).toBe(20);
  });

  it('keeps the writes of a failed background commit buffered, throws its error at the next write, and lands them once the database recovers', async () => {
    const schema = schemaName();
    const store = await open(schema, { batchSize: 3 });
    await store.checkpoint('deals', { value: 0 });
    await pgQuery(`CREATE FUNCTION "${schema}".boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$`);
    await pgQuery(`CREATE TRIGGER boom BEFORE INSERT ON "${schema}".ledger FOR EACH ROW EXECUTE FUNCTION "${schema}".boom()`);
    const ack = (i: number) => store.recordAcknowledged({ sync: 'deals', remoteId: `id-${i}`, fingerprint: 'f', recordId: `r-${i}` });
    for (let i = 0; i < 3; i++) await ack(i); // the third starts a commit in the background, which fails
    await expect(store.flush()).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR' });
    await expect(ack(3)).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR', message: expect.stringContaining('disk on fire') });
    const reader = await open(schema);
    expect((await reader.fingerprints('deals', ['id-0'])).size).toBe(0);
    await pgQuery(`DROP TRIGGER boom ON "${schema}".ledger`);
    await store.checkpoint('deals', { value: 4 });
    expect(await reader.countLive('deals')).toBe(4);
    expect(await reader.cursor('deals')).toEqual({ value: 4 });
  });

  it('adds the source fingerprint column to a schema written before it existed, keeping its rows', async () => {
    const schema = schemaName();
    const old = await open(schema);
    await old.recordAcknowledged({ sync: 'deals', remoteId: 'a', fingerprint: 'v1', recordId: 'r-a' });
    await old.flush();
    // Back to version 1, as a ferry from before migrations 2, 3 and 4 left it.
    await pgQuery(`DROP TABLE "${schema}".export_fingerprints`);
    await pgQuery(`ALTER TABLE "${schema}".ledger DROP COLUMN source_fingerprint`);
    await pgQuery(`DROP INDEX "${schema}".failures_origin`);
    await pgQuery(`UPDATE "${schema}".meta SET value = '1' WHERE key = 'schema_version'`);
    const store = await open(schema);
    expect((await store.fingerprints('deals', ['a'])).get('a')).toEqual({ fingerprint: 'v1', status: 'pushed', recordId: 'r-a' });
    await store.recordAcknowledged({ sync: 'deals', remoteId: 'a', fingerprint: 'v1', recordId: 'r-a', sourceFingerprint: 'src-a' });
    await store.flush();
    expect((await store.fingerprints('deals', ['a'])).get('a')?.sourceFingerprint).toBe('src-a');
    expect(await pgQuery(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`)).toEqual([{ value: String(PG_SCHEMA_VERSION) }]);
  });

  it('opens a schema already at this version without waiting for the migration lock', async () => {
    const schema = schemaName();
    await (await open(schema)).flush();
    // Another process holds the lock, as one migrating would: a store with nothing to migrate does not wait for it.
    const holder = new pg.Client({ connectionString: PG_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ferry-state-migrate:${schema}`]);
      const store = await open(schema);
      await store.checkpoint('deals', { value: 1 });
      expect(await store.cursor('deals')).toEqual({ value: 1 });
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });

  it('refuses a schema written by a newer ferry', async () => {
    const schema = schemaName();
    await (await open(schema)).flush();
    await pgQuery(`UPDATE "${schema}".meta SET value = '99' WHERE key = 'schema_version'`);
    await expect(openStateStore(PG_URL, { schema })).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR', message: expect.stringMatching(/version 99, newer/) });
  });

  it('never shows the password of the state URL in an error', async () => {
    const url = 'postgres://ferry:s3cret-pa55@127.0.0.1:1/ferry';
    const error = (await openStateStore(url, { schema: 'ferry' }).catch((e: unknown) => e)) as Error & { hint?: string; where?: string };
    expect(error).toMatchObject({ code: 'FERRY_STATE_ERROR' });
    const shown = JSON.stringify({ message: error.message, hint: error.hint, where: error.where, stack: error.stack });
    expect(shown).not.toContain('s3cret-pa55');
    expect(shown).toContain('ferry:***@127.0.0.1:1');
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openStateStore(PG_URL, { schema: 'x"; DROP TABLE y; --' })).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR' });
  });

  it('looks a batch up, and resolves its dead-letter entries, by key however large and however un-analysed the tables are', async () => {
    // A planner without statistics (autovacuum off, or not yet run after a large first run) planned the batch
    // look-ups as joins that read every row of the sync: each batch of a no-op re-run read the whole ledger.
    const schema = schemaName();
    const store = await open(schema);
    await store.checkpoint('deals', { value: 0 }); // migrated
    const rows = 20_000;
    await pgQuery(
      `INSERT INTO "${schema}".ledger (sync, remote_id, fingerprint, record_id, status, attempts, updated_at, source_fingerprint)
       SELECT 'deals', 'D' || i, 'f' || i, 'r' || i, 'pushed', 0, 'now', 's' || i FROM generate_series(1, ${rows}) i`,
    );
    await pgQuery(
      `INSERT INTO "${schema}".failures (sync, remote_id, origin, kind, reason, attempts, created_at)
       SELECT 'deals', 'D' || i, 'deals.csv:' || i, 'rejected', 'no', 1, 'now' FROM generate_series(1, ${rows}) i`,
    );
    const batch = Array.from({ length: 256 }, (_, i) => `D${5000 + i}`);
    const statements: { text: string; values: unknown[] }[] = [];
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const recording = { query: (text: string, values: unknown[] = []) => (statements.push({ text, values }), client.query(text, values)) };
      const ledger = new PgLedger(`"${schema}"`);
      // The answers are right, so the statements measured below are the ones that matter.
      const look = await ledger.unchangedAtSource(recording as never, 'deals', batch, batch.map((id, i) => (i % 2 === 0 ? `s${id.slice(1)}` : 'changed')));
      expect([...look.unchanged].filter((u) => u === 1)).toHaveLength(128);
      expect((await ledger.fingerprints(recording as never, 'deals', batch)).size).toBe(256);
      await client.query('BEGIN');
      await ledger.writeAcknowledged(recording as never, batch.map((remoteId) => ({ write: { sync: 'deals', remoteId, fingerprint: 'g', recordId: 'r' }, at: 'now' })));
      expect((await client.query(`SELECT count(*)::int AS n FROM "${schema}".failures`)).rows[0].n).toBe(rows - 256);
      await client.query('ROLLBACK');
      expect(statements).toHaveLength(4);
      // Rows each statement reads from the two tables (EXPLAIN ANALYZE, rolled back): a few per id, not the sync's 20,000.
      for (const { text, values } of statements) {
        await client.query('BEGIN');
        const { rows: plan } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
        await client.query('ROLLBACK');
        const read = rowsRead((plan[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!);
        expect(read, text).toBeLessThanOrEqual(4 * batch.length);
      }
    } finally {
      await client.end();
    }
  });
});

interface PlanNode {
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows (and index entries) the plan read from the ledger and failures tables, over all loops. */
function rowsRead({ Plan: node }: { Plan: PlanNode }): number {
  const here = /ledger|failures/.test(`${node['Relation Name'] ?? ''} ${node['Index Name'] ?? ''}`)
    ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * node['Actual Loops']
    : 0;
  return here + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead({ Plan: child }), 0);
}

