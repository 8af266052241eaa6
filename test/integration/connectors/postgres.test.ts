/**
 * The postgres source against the real server on 127.0.0.1:5432 (database
 * `test`): conformance, the shared SQL scenarios, exact types, errors that
 * never show the password, and abort releasing the connection.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import source from '../../../connectors/sources/postgres/index.js';
import { describeSourceConformance, isFerryError } from '../../../src/sdk/index.js';
import type { FerryError } from '../../../src/sdk/index.js';
import { collect, context, lastPosition, rejection, sqlScenarios, type SqlTestDb } from './sql-harness.js';

const URL_ = process.env.FERRY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const T = (suffix: string) => `ferry_pg_${suffix}_${process.pid}`;
const admin = new pg.Client({ connectionString: URL_ });
let connected: Promise<unknown> | undefined;
const exec = async (sql: string): Promise<void> => {
  await (connected ??= admin.connect());
  await admin.query(sql);
};
afterAll(async () => {
  if (connected) await admin.end();
});

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const db: SqlTestDb = {
  name: 'postgres',
  source,
  connection: () => ({ url: URL_ }),
  types: { ts: 'timestamptz', text: 'text', decimal: 'numeric(12,2)' },
  at: (seconds, micros = 0) => `'2024-01-01 00:${pad(Math.floor(seconds / 60))}:${pad(seconds % 60)}.${pad(micros, 6)}+00'`,
  exec,
  quote: (name) => `"${name}"`,
};

const CONF = T('conf');
await describeSourceConformance(source, {
  options: { url: URL_, table: CONF, primaryKey: 'id', fetchSize: 4 },
  primaryKey: ['id'],
  cursorField: 'updated_at',
  sorted: true,
  expectedCount: 25,
  interruptAfter: 9,
  setup: async () => {
    await exec(`DROP TABLE IF EXISTS "${CONF}"; CREATE TABLE "${CONF}" (id int PRIMARY KEY, name text, updated_at timestamptz)`);
    // Groups of five share a timestamp, so ties straddle the 4-row fetch pages.
    await exec(`INSERT INTO "${CONF}" SELECT i, 'row ' || i, '2024-01-01'::timestamptz + ((i - 1) / 5) * interval '1 second' FROM generate_series(1, 25) i`);
  },
  teardown: () => exec(`DROP TABLE IF EXISTS "${CONF}"`),
});

sqlScenarios(db, T);

describe('postgres: values', () => {
  const TYPES = T('types');
  beforeAll(async () => {
    await exec(`DROP TABLE IF EXISTS "${TYPES}"`);
    await exec(`CREATE TABLE "${TYPES}" (
      id bigint PRIMARY KEY, amount numeric(30,10), happened timestamptz, local_ts timestamp, day date,
      doc jsonb, raw json, tags text[], counts int8[], blob bytea, flag boolean, label text, ratio double precision)`);
    await exec(`INSERT INTO "${TYPES}" VALUES
      (9007199254740993, 12345678901234567890.0123456789, '2024-03-01 09:15:30.123456+05:30', '2024-03-01 23:59:59.999999', '2024-02-29',
       '{"a": {"b": [1, 2]}}', '[1, "x"]', '{"α", "b,c"}', '{9007199254740993, 1}', '\\x00ff10', true, 'naïve café ✓ 日本', 0.1),
      (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false, NULL, NULL)`);
  });
  afterAll(() => exec(`DROP TABLE IF EXISTS "${TYPES}"`));

  it('converts every type faithfully: exact bigints and numerics, UTC ISO timestamps with microseconds, dates unshifted', async () => {
    const [small, big] = await collect(db, { table: TYPES, primaryKey: 'id' });
    expect(big!.data).toEqual({
      id: '9007199254740993',
      amount: '12345678901234567890.0123456789',
      happened: '2024-03-01T03:45:30.123456Z',
      local_ts: '2024-03-01T23:59:59.999999Z',
      day: '2024-02-29',
      doc: { a: { b: [1, 2] } },
      raw: [1, 'x'],
      tags: ['α', 'b,c'],
      counts: ['9007199254740993', 1],
      blob: Buffer.from([0, 255, 16]).toString('base64'),
      flag: true,
      label: 'naïve café ✓ 日本',
      ratio: 0.1,
    });
    expect(small!.data).toMatchObject({ id: 1, amount: null, happened: null, day: null, doc: null, tags: null, flag: false });
    expect(big!.origin).toEqual({ stream: TYPES, table: TYPES, key: '9007199254740993' });
  });

  it('keeps microseconds and int8 precision in cursors, so neighbours one unit apart are told apart', async () => {
    const MICRO = T('micro');
    await exec(`DROP TABLE IF EXISTS "${MICRO}"; CREATE TABLE "${MICRO}" (id int PRIMARY KEY, at timestamptz, big bigint)`);
    try {
      await exec(`INSERT INTO "${MICRO}" VALUES (1, '2024-05-05 10:00:00.123456+02', 9007199254740993), (2, '2024-05-05 10:00:00.123457+02', 9007199254740994)`);
      const byTime = await collect(db, { table: MICRO, primaryKey: 'id' }, { incremental: { cursorField: 'at' } });
      expect(byTime.map((r) => r.cursor)).toEqual(['2024-05-05T08:00:00.123456Z', '2024-05-05T08:00:00.123457Z']);
      // A position without a key re-reads its own value (>=); with the key, only what follows.
      expect((await collect(db, { table: MICRO, primaryKey: 'id' }, { incremental: { cursorField: 'at', after: { value: byTime[0]!.cursor! } } })).length).toBe(2);
      expect((await collect(db, { table: MICRO, primaryKey: 'id' }, { incremental: { cursorField: 'at', after: lastPosition(byTime.slice(0, 1), ['id'])! } })).map((r) => r.data.id)).toEqual([2]);

      const byBig = await collect(db, { table: MICRO, primaryKey: 'id' }, { incremental: { cursorField: 'big', after: { value: '9007199254740993', key: '1' } } });
      expect(byBig.map((r) => [r.data.id, r.cursor])).toEqual([[2, '9007199254740994']]);
    } finally {
      await exec(`DROP TABLE IF EXISTS "${MICRO}"`);
    }
  });

  it('discovers types, nullability, the primary key and cursor candidates from the catalog', async () => {
    await exec(`ANALYZE "${TYPES}"`);
    const [stream] = await db.source.discover(context(db, { table: TYPES }));
    const types = Object.fromEntries(stream!.fields.map((f) => [f.name, f.type]));
    expect(types).toEqual({
      id: 'int', amount: 'double', happened: 'datetime', local_ts: 'datetime', day: 'date', doc: 'textarea', raw: 'textarea',
      tags: 'list', counts: 'list', blob: 'textarea', flag: 'boolean', label: 'textarea', ratio: 'double',
    });
    expect(stream!.fields.find((f) => f.name === 'id')).toMatchObject({ nullable: false, sourceType: 'bigint' });
    expect(stream!.fields.find((f) => f.name === 'amount')).toMatchObject({ nullable: true, sourceType: 'numeric(30,10)' });
    expect(stream!.primaryKey).toEqual(['id']);
    expect(stream!.cursorCandidates).toEqual(['id', 'amount', 'happened', 'local_ts', 'day', 'ratio']);
    expect(stream!.estimatedCount).toBe(2);
    // Without a table: every table of the search path.
    const all = await db.source.discover(context(db, {}));
    expect(all.map((s) => s.name)).toContain(`public.${TYPES}`);
  });
});

describe('postgres: connection errors never show the password', () => {
  const SECRET = 's3cr3t-Pa55';

  it('reports an unreachable server (closed port) as FERRY_SOURCE_UNREACHABLE', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const url = `postgres://postgres:${SECRET}@127.0.0.1:${port}/test`;
    const error = (await rejection(collect(db, { url, table: 'deals' }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_UNREACHABLE')).toBe(true);
    expect(error.message).toContain(`postgres://postgres:***@127.0.0.1:${port}/test`);
    expect(error.where).toBe('sync sql-test');
    expectNoSecret(error, SECRET);
  });

  it('reports refused credentials as FERRY_SOURCE_AUTH', async () => {
    // The test server trusts local users, so an unknown role is what it refuses.
    const url = `postgres://ferry_no_such_role:${SECRET}@127.0.0.1:5432/test`;
    const error = (await rejection(db.source.check!(context(db, { url, table: 'deals' })))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_AUTH')).toBe(true);
    expectNoSecret(error, SECRET);
  });

  it('reports a missing database as FERRY_SOURCE_OBJECT_MISSING', async () => {
    const error = (await rejection(collect(db, { url: `postgres://postgres:${SECRET}@127.0.0.1:5432/ferry_no_such_db`, table: 'x' }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
    expectNoSecret(error, SECRET);
  });
});

describe('postgres: statementTimeoutMs', () => {
  it('cancels a statement that runs too long as FERRY_SOURCE_READ_FAILED', async () => {
    const error = (await rejection(collect(db, { query: 'SELECT 1 AS id FROM pg_sleep(2)', statementTimeoutMs: 100 }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect(error.message).toContain('timed out');
    expect(error.retryable).toBe(true);
  });
});

function expectNoSecret(error: FerryError, secret: string): void {
  const text = [error.message, error.describe(), JSON.stringify(error.details), String((error.cause as Error | undefined)?.message)].join('\n');
  expect(text).not.toContain(secret);
}

describe('postgres: abort', () => {
  it('stops a streaming read through its signal and releases the connection', async () => {
    const BIG = T('abort');
    const appName = `ferry_abort_${process.pid}`;
    await exec(`DROP TABLE IF EXISTS "${BIG}"; CREATE TABLE "${BIG}" AS SELECT i AS id FROM generate_series(1, 20000) i`);
    try {
      const controller = new AbortController();
      let read = 0;
      const error = await rejection(
        (async () => {
          for await (const _ of db.source.read(context(db, { url: `${URL_}?application_name=${appName}`, table: BIG, primaryKey: 'id', fetchSize: 100 }, { signal: controller.signal }))) {
            if (++read === 250) controller.abort();
          }
        })(),
      );
      expect(error).toBe(controller.signal.reason);
      expect(read).toBe(250);
      let open = 1;
      for (let i = 0; i < 50 && open > 0; i++) {
        const result = await admin.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1`, [appName]);
        open = Number(result.rows[0]!.n);
        if (open > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(open).toBe(0);
    } finally {
      await exec(`DROP TABLE IF EXISTS "${BIG}"`);
    }
  });
});
