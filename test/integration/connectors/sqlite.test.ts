/**
 * The sqlite source on temporary database files: conformance, the shared SQL
 * scenarios, values, path/url resolution and errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import source from '../../../connectors/sources/sqlite/index.js';
import { describeSourceConformance, isFerryError } from '../../../src/sdk/index.js';
import { collect, context, rejection, sqlScenarios, type SqlTestDb } from './sql-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-sqlite-'));
const file = join(dir, 'test.db');
const admin = new Database(file);
afterAll(() => {
  admin.close();
  rmSync(dir, { recursive: true, force: true });
});

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const db: SqlTestDb = {
  name: 'sqlite',
  source,
  connection: () => ({ path: file }),
  types: { ts: 'DATETIME', text: 'TEXT', decimal: 'NUMERIC(12,2)' },
  at: (seconds, micros = 0) => `'2024-01-01 00:${pad(Math.floor(seconds / 60))}:${pad(seconds % 60)}.${pad(micros, 6)}'`,
  exec: async (sql) => {
    admin.exec(sql);
  },
  quote: (name) => `"${name}"`,
};
const T = (suffix: string) => `ferry_lite_${suffix}`;

await describeSourceConformance(source, {
  options: { url: 'sqlite:test.db', table: 'conf', primaryKey: 'id', fetchSize: 4 },
  baseDir: dir,
  primaryKey: ['id'],
  cursorField: 'updated_at',
  sorted: true,
  expectedCount: 25,
  interruptAfter: 9,
  setup: () => {
    admin.exec(`DROP TABLE IF EXISTS conf; CREATE TABLE conf (id INTEGER PRIMARY KEY, name TEXT, updated_at INTEGER)`);
    const insert = admin.prepare('INSERT INTO conf VALUES (?, ?, ?)');
    for (let i = 1; i <= 25; i++) insert.run(i, `row ${i}`, 1_700_000_000 + Math.floor((i - 1) / 5));
  },
  teardown: () => {
    admin.exec('DROP TABLE IF EXISTS conf');
  },
});

sqlScenarios(db, T);

describe('sqlite: values and files', () => {
  it('converts integers beyond 2^53 exactly, blobs to base64, declared BOOLEAN and JSON columns', async () => {
    admin.exec(`DROP TABLE IF EXISTS types; CREATE TABLE types (id INTEGER PRIMARY KEY, big INTEGER, ratio REAL, flag BOOLEAN, doc JSON, blob BLOB, label TEXT, day DATE)`);
    admin.prepare('INSERT INTO types VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(1, 9007199254740993n, 0.1, 1, '{"a":[1,2]}', Buffer.from([0, 255, 16]), 'naïve café ✓ 日本', '2024-02-29');
    admin.prepare('INSERT INTO types VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(2, null, null, 0, null, null, null, null);
    const records = await collect(db, { table: 'types' });
    expect(records.map((r) => r.data)).toEqual([
      { id: 1, big: '9007199254740993', ratio: 0.1, flag: true, doc: { a: [1, 2] }, blob: Buffer.from([0, 255, 16]).toString('base64'), label: 'naïve café ✓ 日本', day: '2024-02-29' },
      { id: 2, big: null, ratio: null, flag: false, doc: null, blob: null, label: null, day: null },
    ]);
    // The table's primary key is the origin key even when primaryKey is not configured.
    expect(records[0]!.origin).toEqual({ stream: 'types', table: 'types', key: '1' });

    const bigs = await collect(db, { table: 'types' }, { incremental: { cursorField: 'big', after: { value: '9007199254740992', key: '0' } } });
    expect(bigs.map((r) => r.data.id)).toEqual([2, 1]);
    expect(bigs[1]!.cursor).toBe('9007199254740993');

    const [stream] = await db.source.discover(context(db, { table: 'types' }));
    expect(Object.fromEntries(stream!.fields.map((f) => [f.name, f.type]))).toEqual({
      id: 'int', big: 'int', ratio: 'double', flag: 'boolean', doc: 'textarea', blob: 'textarea', label: 'textarea', day: 'date',
    });
    expect(stream!.estimatedCount).toBe(2);
    expect(stream!.primaryKey).toEqual(['id']);
  });

  it('resolves path and sqlite: URLs against baseDir, and reports a missing file without creating it', async () => {
    admin.exec('DROP TABLE IF EXISTS t; CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)');
    expect(await collect(db, { path: undefined, url: 'sqlite:test.db', table: 't' }, { baseDir: dir })).toHaveLength(1);
    expect(await collect(db, { path: undefined, url: `sqlite://${file}`, table: 't' }, { baseDir: '/' })).toHaveLength(1);
    const error = await rejection(collect(db, { path: 'missing.db', table: 't' }, { baseDir: dir }));
    expect(isFerryError(error, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
    expect((error as Error).message).toContain(join(dir, 'missing.db'));
    expect(() => Database(join(dir, 'missing.db'), { fileMustExist: true })).toThrow();
    expect(source.options.safeParse({ table: 't' }).success).toBe(false);
    expect(source.options.safeParse({ path: 'a.db', url: 'sqlite:a.db', table: 't' }).success).toBe(false);
    expect(source.options.safeParse({ path: 'a.db', table: 't', query: 'SELECT 1' }).success).toBe(false);
    expect(source.options.safeParse({ path: 'a.db', query: 'DELETE FROM t' }).success).toBe(false);
  });

  it('lists every table when discover() has no table, and refuses to read without one', async () => {
    const streams = await db.source.discover(context(db, {}));
    expect(streams.map((s) => s.name)).toContain('t');
    const error = await rejection(collect(db, {}));
    expect(isFerryError(error, 'FERRY_CONFIG_INVALID')).toBe(true);
  });

  it('quotes odd identifiers instead of splicing them', async () => {
    admin.exec(`DROP TABLE IF EXISTS "we""ird table"; CREATE TABLE "we""ird table" ("my col" INTEGER PRIMARY KEY, "x""y" TEXT); INSERT INTO "we""ird table" VALUES (1, 'ok')`);
    const records = await collect(db, { table: 'we"ird table', columns: ['x"y'] }, { incremental: { cursorField: 'my col' } });
    expect(records.map((r) => r.data)).toEqual([{ 'x"y': 'ok', 'my col': 1 }]);
  });
});
