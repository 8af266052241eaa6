/**
 * The mysql source against the real MariaDB on 127.0.0.1:3306 (database
 * `test`): conformance, the shared SQL scenarios, exact types, and errors
 * that never show the password.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import source from '../../../connectors/sources/mysql/index.js';
import { describeSourceConformance, isFerryError } from '../../../src/sdk/index.js';
import type { FerryError } from '../../../src/sdk/index.js';
import { collect, context, rejection, sqlScenarios, type SqlTestDb } from './sql-harness.js';

const URL_ = process.env.FERRY_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const T = (suffix: string) => `ferry_my_${suffix}_${process.pid}`;
let admin: Promise<mysql.Connection> | undefined;
const exec = async (sql: string): Promise<void> => {
  await (await (admin ??= mysql.createConnection(URL_))).query(sql);
};
afterAll(async () => {
  if (admin) await (await admin).end();
});

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const db: SqlTestDb = {
  name: 'mysql',
  source,
  connection: () => ({ url: URL_ }),
  types: { ts: 'datetime(6)', text: 'text', decimal: 'decimal(12,2)' },
  at: (seconds, micros = 0) => `'2024-01-01 00:${pad(Math.floor(seconds / 60))}:${pad(seconds % 60)}.${pad(micros, 6)}'`,
  exec,
  quote: (name) => `\`${name}\``,
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
    await exec(`DROP TABLE IF EXISTS \`${CONF}\``);
    await exec(`CREATE TABLE \`${CONF}\` (id int PRIMARY KEY, name varchar(20), updated_at timestamp(6) NULL)`);
    const rows = Array.from({ length: 25 }, (_, i) => `(${i + 1}, 'row ${i + 1}', '2024-01-01 00:00:0${Math.floor(i / 5)}.000001')`);
    await exec(`INSERT INTO \`${CONF}\` VALUES ${rows.join(', ')}`);
  },
  teardown: () => exec(`DROP TABLE IF EXISTS \`${CONF}\``),
});

sqlScenarios(db, T);

describe('mysql: values', () => {
  const TYPES = T('types');
  beforeAll(async () => {
    await exec(`DROP TABLE IF EXISTS \`${TYPES}\``);
    await exec(`CREATE TABLE \`${TYPES}\` (
      id bigint unsigned PRIMARY KEY, amount decimal(30,10), happened timestamp(6) NULL, local_ts datetime(6), day date,
      doc json, blob_col blob, flag tinyint(1), label text, ratio double, tiny tinyint, code varchar(10)) CHARACTER SET utf8mb4`);
    await exec(`INSERT INTO \`${TYPES}\` VALUES
      (18446744073709551615, 12345678901234567890.0123456789, '2024-03-01 03:45:30.123456', '2024-03-01 23:59:59.999999', '2024-02-29',
       '{"a": {"b": [1, 2]}}', x'00ff10', 1, 'naïve café ✓ 日本 😀', 0.1, 7, 'x'),
      (1, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL)`);
  });
  afterAll(() => exec(`DROP TABLE IF EXISTS \`${TYPES}\``));

  it('converts every type faithfully: exact bigints and decimals, UTC ISO timestamps with microseconds, dates unshifted', async () => {
    const [small, big] = await collect(db, { table: TYPES, primaryKey: 'id' });
    expect(big!.data).toEqual({
      id: '18446744073709551615',
      amount: '12345678901234567890.0123456789',
      happened: '2024-03-01T03:45:30.123456Z',
      local_ts: '2024-03-01T23:59:59.999999Z',
      day: '2024-02-29',
      doc: { a: { b: [1, 2] } },
      blob_col: Buffer.from([0, 255, 16]).toString('base64'),
      flag: true,
      label: 'naïve café ✓ 日本 😀',
      ratio: 0.1,
      tiny: 7,
      code: 'x',
    });
    expect(small!.data).toMatchObject({ id: 1, amount: null, happened: null, day: null, doc: null, flag: false });
  });

  it('compares unsigned bigints and microsecond timestamps exactly in incremental reads', async () => {
    const MICRO = T('micro');
    await exec(`DROP TABLE IF EXISTS \`${MICRO}\``);
    await exec(`CREATE TABLE \`${MICRO}\` (id bigint unsigned PRIMARY KEY, at datetime(6))`);
    try {
      await exec(`INSERT INTO \`${MICRO}\` VALUES (9007199254740993, '2024-05-05 08:00:00.123456'), (9007199254740994, '2024-05-05 08:00:00.123456'), (3, '2024-05-05 08:00:00.123457')`);
      const all = await collect(db, { table: MICRO, primaryKey: 'id' }, { incremental: { cursorField: 'at' } });
      expect(all.map((r) => r.cursor)).toEqual(['2024-05-05T08:00:00.123456Z', '2024-05-05T08:00:00.123456Z', '2024-05-05T08:00:00.123457Z']);
      const rest = await collect(db, { table: MICRO, primaryKey: 'id' }, { incremental: { cursorField: 'at', after: { value: all[0]!.cursor!, key: '9007199254740993' } } });
      expect(rest.map((r) => r.data.id)).toEqual(['9007199254740994', 3]);
      const byId = await collect(db, { table: MICRO, primaryKey: 'id' }, { incremental: { cursorField: 'id', after: { value: '9007199254740993', key: '9007199254740993' } } });
      expect(byId.map((r) => r.cursor)).toEqual(['9007199254740994']);
    } finally {
      await exec(`DROP TABLE IF EXISTS \`${MICRO}\``);
    }
  });

  it('discovers types (tinyint(1) as boolean, MariaDB JSON), the primary key and an estimate', async () => {
    const [stream] = await db.source.discover(context(db, { table: TYPES }));
    const types = Object.fromEntries(stream!.fields.map((f) => [f.name, f.type]));
    expect(types).toEqual({
      id: 'int', amount: 'double', happened: 'datetime', local_ts: 'datetime', day: 'date', doc: 'textarea',
      blob_col: 'textarea', flag: 'boolean', label: 'textarea', ratio: 'double', tiny: 'int', code: 'string',
    });
    expect(stream!.fields.find((f) => f.name === 'doc')!.sourceType).toBe('json');
    expect(stream!.fields.find((f) => f.name === 'id')).toMatchObject({ nullable: false, sourceType: 'bigint(20) unsigned' });
    expect(stream!.primaryKey).toEqual(['id']);
    expect(stream!.estimatedCount).toBeGreaterThanOrEqual(0);
  });
});

describe('mysql: connection errors never show the password', () => {
  const SECRET = 's3cr3t-Pa55';

  it('reports an unreachable server (closed port) as FERRY_SOURCE_UNREACHABLE', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = (await rejection(collect(db, { url: `mysql://root:${SECRET}@127.0.0.1:${port}/test`, table: 'deals' }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_UNREACHABLE')).toBe(true);
    expect(error.message).toContain(`mysql://root:***@127.0.0.1:${port}/test`);
    expectNoSecret(error, SECRET);
  });

  it('reports a wrong password as FERRY_SOURCE_AUTH', async () => {
    const error = (await rejection(db.source.check!(context(db, { url: `mysql://root:${SECRET}@127.0.0.1:3306/test`, table: 'deals' })))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_AUTH')).toBe(true);
    expect(error.message).toContain('mysql://root:***@127.0.0.1:3306/test');
    expectNoSecret(error, SECRET);
  });

  it('reports a missing database as FERRY_SOURCE_OBJECT_MISSING', async () => {
    const error = (await rejection(collect(db, { url: 'mysql://root@127.0.0.1:3306/ferry_no_such_db', table: 'x' }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
  });
});

function expectNoSecret(error: FerryError, secret: string): void {
  const text = [error.message, error.describe(), JSON.stringify(error.details), String((error.cause as Error | undefined)?.message)].join('\n');
  expect(text).not.toContain(secret);
}

describe('mysql: abort', () => {
  it('stops a streaming read through its signal', async () => {
    const BIG = T('abort');
    await exec(`DROP TABLE IF EXISTS \`${BIG}\``);
    await exec(`CREATE TABLE \`${BIG}\` (id int PRIMARY KEY)`);
    try {
      await exec(`INSERT INTO \`${BIG}\` VALUES ${Array.from({ length: 20000 }, (_, i) => `(${i + 1})`).join(',')}`);
      const controller = new AbortController();
      let read = 0;
      const error = await rejection(
        (async () => {
          for await (const _ of db.source.read(context(db, { table: BIG, primaryKey: 'id', fetchSize: 100 }, { signal: controller.signal }))) {
            if (++read === 250) controller.abort();
          }
        })(),
      );
      expect(error).toBe(controller.signal.reason);
      expect(read).toBe(250);
    } finally {
      await exec(`DROP TABLE IF EXISTS \`${BIG}\``);
    }
  });
});
