/**
 * Shared scenarios for the SQL sources, run against real servers (PostgreSQL,
 * MariaDB) and SQLite files: first and incremental runs, ties across fetch
 * pages, composite keys, NULL cursors, query sources, lag, missing objects.
 * Each test file passes a small adapter for its database.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { CursorPosition, IncrementalRead, ReadContext, ReadPartition, SourceDefinition, SourceRecord } from '../../../src/sdk/index.js';
import { isFerryError } from '../../../src/sdk/index.js';

export interface SqlTestDb {
  name: string;
  source: SourceDefinition<z.ZodType>;
  /** `{ url }` or `{ path }`. */
  connection: () => Record<string, unknown>;
  /** Column types for the scenarios' tables. */
  types: { ts: string; text: string; decimal: string };
  /** A timestamp literal `seconds` after 2024-01-01 00:00:00 UTC (with microseconds). */
  at(seconds: number, micros?: number): string;
  exec(sql: string): Promise<void>;
  quote(name: string): string;
}

export interface Captured {
  warnings: { obj: unknown; msg: string | undefined }[];
}

export function context(
  db: SqlTestDb,
  options: Record<string, unknown>,
  extra: { incremental?: IncrementalRead; signal?: AbortSignal; captured?: Captured; baseDir?: string; partition?: ReadPartition } = {},
): ReadContext<unknown> {
  return {
    options: db.source.options.parse({ ...db.connection(), ...options }),
    baseDir: extra.baseDir ?? process.cwd(),
    syncName: 'sql-test',
    logger: {
      debug() {},
      info() {},
      warn: (obj: object | string, msg?: string) => extra.captured?.warnings.push({ obj, msg }),
      error() {},
    },
    signal: extra.signal ?? new AbortController().signal,
    ...(extra.incremental ? { incremental: extra.incremental } : {}),
    ...(extra.partition ? { partition: extra.partition } : {}),
  };
}

export async function collect(db: SqlTestDb, options: Record<string, unknown>, extra: Parameters<typeof context>[2] = {}): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for await (const record of db.source.read(context(db, options, extra))) records.push(record);
  return records;
}

/** The position the runner would store after these records: the last cursor with its primary-key text. */
export function lastPosition(records: readonly SourceRecord[], primaryKey: readonly string[]): CursorPosition | undefined {
  const last = [...records].reverse().find((record) => record.cursor !== undefined && record.cursor !== null);
  if (!last) return undefined;
  return { value: last.cursor!, key: primaryKey.map((field) => String(last.data[field] ?? '')).join('\u001f') };
}

export function ids(records: readonly SourceRecord[], field = 'id'): string[] {
  return records.map((record) => String(record.data[field]));
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Register the shared scenarios; `table` gives a per-file unique table name. */
export function sqlScenarios(db: SqlTestDb, table: (suffix: string) => string): void {
  const q = (suffix: string) => db.quote(table(suffix));
  const create = async (suffix: string, columns: string) => {
    await db.exec(`DROP TABLE IF EXISTS ${q(suffix)}`);
    await db.exec(`CREATE TABLE ${q(suffix)} (${columns})`);
  };
  const drop = (suffix: string) => db.exec(`DROP TABLE IF EXISTS ${q(suffix)}`);

  describe(`${db.name}: partitioned reads`, () => {
    it('cuts the rows into slices by a hash of the key: no overlap, none missing, each slice used', async () => {
      await create('part', `id INT, region VARCHAR(8), PRIMARY KEY (id, region)`);
      try {
        const values = Array.from({ length: 60 }, (_, i) => `(${i}, '${i % 2 === 0 ? 'eu' : 'us'}')`).join(', ');
        await db.exec(`INSERT INTO ${q('part')} VALUES ${values}`);
        const options = { table: table('part'), primaryKey: ['id', 'region'] };
        const slices = await Promise.all([0, 1, 2, 3].map((index) => collect(db, options, { partition: { index, count: 4 } })));
        const all = slices.flatMap((records) => ids(records));
        expect(all.sort()).toEqual(ids(await collect(db, options)).sort());
        expect(new Set(all).size).toBe(60);
        for (const records of slices) expect(records.length).toBeGreaterThan(0);
        // Stable: the same slice twice reads the same rows.
        expect(ids(await collect(db, options, { partition: { index: 1, count: 4 } }))).toEqual(ids(slices[1]!));
      } finally {
        await drop('part');
      }
    });

    it('refuses to partition a read without a primary key', async () => {
      await create('nokey', `id INT, name ${db.types.text}`);
      try {
        const error = await rejection(collect(db, { table: table('nokey') }, { partition: { index: 0, count: 2 } }));
        expect(isFerryError(error, 'FERRY_CONFIG_INVALID')).toBe(true);
      } finally {
        await drop('nokey');
      }
    });
  });

  describe(`${db.name}: incremental reads`, () => {
    it('reads everything first, then only rows inserted or updated since the stored position', async () => {
      await create('inc', `id INT PRIMARY KEY, name ${db.types.text}, updated_at ${db.types.ts}`);
      try {
        await db.exec(`INSERT INTO ${q('inc')} VALUES (1, 'a', ${db.at(10)}), (2, 'b', ${db.at(20)}), (3, 'c', ${db.at(30)})`);
        const options = { table: table('inc'), primaryKey: 'id' };
        const first = await collect(db, options, { incremental: { cursorField: 'updated_at' } });
        expect(ids(first)).toEqual(['1', '2', '3']);
        const position = lastPosition(first, ['id'])!;

        const nothing = await collect(db, options, { incremental: { cursorField: 'updated_at', after: position } });
        expect(nothing).toEqual([]);

        await db.exec(`INSERT INTO ${q('inc')} VALUES (4, 'd', ${db.at(40)})`);
        await db.exec(`UPDATE ${q('inc')} SET name = 'a2', updated_at = ${db.at(50)} WHERE id = 1`);
        const second = await collect(db, options, { incremental: { cursorField: 'updated_at', after: position } });
        expect(ids(second)).toEqual(['4', '1']);
        expect(second[1]!.data.name).toBe('a2');

        // A non-incremental read (what deletes: mirror's key scan uses) returns every row.
        expect(ids(await collect(db, options)).sort()).toEqual(['1', '2', '3', '4']);
      } finally {
        await drop('inc');
      }
    });

    it('loses no row when a group of equal cursors spans fetch pages and the read is interrupted inside it', async () => {
      await create('ties', `id INT PRIMARY KEY, updated_at ${db.types.ts}`);
      try {
        const values = Array.from({ length: 10 }, (_, i) => `(${i + 1}, ${i < 2 ? db.at(5) : db.at(7, 123456)})`);
        await db.exec(`INSERT INTO ${q('ties')} VALUES ${values.join(', ')}`);
        const options = { table: table('ties'), primaryKey: 'id', fetchSize: 3 };
        const everything = await collect(db, options, { incremental: { cursorField: 'updated_at' } });
        expect(ids(everything)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);

        const controller = new AbortController();
        const received: SourceRecord[] = [];
        const aborted = await rejection(
          (async () => {
            for await (const record of db.source.read(context(db, options, { incremental: { cursorField: 'updated_at' }, signal: controller.signal }))) {
              received.push(record);
              if (received.length === 5) controller.abort();
            }
          })(),
        );
        expect(aborted).toBe(controller.signal.reason);
        expect(ids(received)).toEqual(['1', '2', '3', '4', '5']);

        const rest = await collect(db, options, { incremental: { cursorField: 'updated_at', after: lastPosition(received, ['id'])! } });
        expect(ids(rest)).toEqual(['6', '7', '8', '9', '10']);
      } finally {
        await drop('ties');
      }
    });

    it('compares composite keys per column and by type (9 < 10)', async () => {
      await create('comp', `region VARCHAR(10) NOT NULL, seq INT NOT NULL, updated_at ${db.types.ts}, PRIMARY KEY (region, seq)`);
      try {
        await db.exec(
          `INSERT INTO ${q('comp')} VALUES ('eu', 9, ${db.at(1)}), ('eu', 10, ${db.at(1)}), ('eu', 11, ${db.at(1)}), ('us', 2, ${db.at(1)}), ('us', 1, ${db.at(2)})`,
        );
        const options = { table: table('comp'), primaryKey: ['region', 'seq'] };
        const all = await collect(db, options, { incremental: { cursorField: 'updated_at' } });
        expect(all.map((r) => r.origin.key)).toEqual(['eu\u001f9', 'eu\u001f10', 'eu\u001f11', 'us\u001f2', 'us\u001f1']);
        const after = { value: all[0]!.cursor!, key: 'eu\u001f9' };
        const rest = await collect(db, options, { incremental: { cursorField: 'updated_at', after } });
        expect(rest.map((r) => r.origin.key)).toEqual(['eu\u001f10', 'eu\u001f11', 'us\u001f2', 'us\u001f1']);
        // Without primaryKey in the options, the table's own primary key is used.
        const byCatalog = await collect(db, { table: table('comp') }, { incremental: { cursorField: 'updated_at', after: { value: all[0]!.cursor!, key: 'eu\u001f11' } } });
        expect(byCatalog.map((r) => r.origin.key)).toEqual(['us\u001f2', 'us\u001f1']);
      } finally {
        await drop('comp');
      }
    });

    it('nullCursor: include reads NULL-cursor rows first on every run; skip leaves them out and logs the count', async () => {
      await create('nulls', `id INT PRIMARY KEY, updated_at ${db.types.ts}`);
      try {
        await db.exec(`INSERT INTO ${q('nulls')} VALUES (1, ${db.at(1)}), (2, NULL), (3, ${db.at(3)}), (4, NULL)`);
        const options = { table: table('nulls'), primaryKey: 'id' };
        const first = await collect(db, options, { incremental: { cursorField: 'updated_at' } });
        expect(first.map((r) => [r.data.id, r.cursor === null])).toEqual([[2, true], [4, true], [1, false], [3, false]]);
        const again = await collect(db, options, { incremental: { cursorField: 'updated_at', after: lastPosition(first, ['id'])! } });
        expect(ids(again)).toEqual(['2', '4']);

        const captured: Captured = { warnings: [] };
        const skipped = await collect(db, { ...options, nullCursor: 'skip' }, { incremental: { cursorField: 'updated_at' }, captured });
        expect(ids(skipped)).toEqual(['1', '3']);
        expect(captured.warnings).toHaveLength(1);
        expect(captured.warnings[0]!.obj).toMatchObject({ skipped: 2, cursor: 'updated_at' });
        const skippedAgain = await collect(db, { ...options, nullCursor: 'skip' }, { incremental: { cursorField: 'updated_at', after: lastPosition(first, ['id'])! } });
        expect(skippedAgain).toEqual([]);
      } finally {
        await drop('nulls');
      }
    });

    it('reads a query: source incrementally (wrapped as a subquery) and honours columns:, where: and lag', async () => {
      await create('q', `id INT PRIMARY KEY, name ${db.types.text}, amount ${db.types.decimal}, archived INT NOT NULL, updated_at ${db.types.ts}`);
      try {
        await db.exec(
          `INSERT INTO ${q('q')} VALUES (1, 'a', 10.50, 0, ${db.at(100)}), (2, 'b', 20.25, 1, ${db.at(200)}), (3, 'c', 30.00, 0, ${db.at(300)}), (4, 'd', 40.75, 0, ${db.at(400)})`,
        );
        const query = `SELECT id, name, updated_at FROM ${q('q')} WHERE archived = 0`;
        const viaQuery = await collect(db, { query, primaryKey: 'id' }, { incremental: { cursorField: 'updated_at', after: { value: (await collect(db, { query, primaryKey: 'id' }, { incremental: { cursorField: 'updated_at' } }))[0]!.cursor!, key: '1' } } });
        expect(ids(viaQuery)).toEqual(['3', '4']);
        expect(Object.keys(viaQuery[0]!.data).sort()).toEqual(['id', 'name', 'updated_at']);

        const streams = await db.source.discover(context(db, { query, primaryKey: 'id' }));
        expect(streams[0]!.fields.map((f) => f.name)).toEqual(['id', 'name', 'updated_at']);
        expect(streams[0]!.fields.find((f) => f.name === 'updated_at')!.type).toBe('datetime');

        const limited = await collect(db, { table: table('q'), columns: ['name'], where: 'archived = 0', primaryKey: 'id' }, { incremental: { cursorField: 'updated_at' } });
        expect(limited.map((r) => Object.keys(r.data).sort())).toEqual(Array(3).fill(['id', 'name', 'updated_at']));
        expect(ids(limited)).toEqual(['1', '3', '4']);

        // lag: 150 s below the position (row 3 at 300 s) re-reads row 3 and everything after.
        const third = limited[1]!;
        const lagged = await collect(db, { table: table('q'), where: 'archived = 0', primaryKey: 'id' }, { incremental: { cursorField: 'updated_at', after: { value: third.cursor!, key: '3' }, lag: 150 } });
        expect(ids(lagged)).toEqual(['3', '4']);
        const wider = await collect(db, { table: table('q'), primaryKey: 'id' }, { incremental: { cursorField: 'updated_at', after: { value: third.cursor!, key: '3' }, lag: 250 } });
        expect(ids(wider)).toEqual(['1', '2', '3', '4']);
      } finally {
        await drop('q');
      }
    });
  });

  describe(`${db.name}: missing objects`, () => {
    it('names the missing table, cursor column and key column', async () => {
      await create('miss', `id INT PRIMARY KEY, updated_at ${db.types.ts}`);
      try {
        const noTable = await rejection(collect(db, { table: table('nope') }));
        expect(isFerryError(noTable, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
        expect((noTable as Error).message).toContain(table('nope'));
        expect(isFerryError(await rejection(db.source.check!(context(db, { table: table('nope') }))), 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);

        const noCursor = await rejection(collect(db, { table: table('miss') }, { incremental: { cursorField: 'modified' } }));
        expect(isFerryError(noCursor, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
        expect((noCursor as Error).message).toContain('"modified"');
        expect((noCursor as Error).message).toContain(table('miss'));
        expect((noCursor as { where?: string }).where).toBe('sync sql-test');

        const noKey = await rejection(db.source.check!(context(db, { table: table('miss'), primaryKey: 'uuid' })));
        expect(isFerryError(noKey, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
        expect((noKey as Error).message).toContain('"uuid"');

        await expect(db.source.check!(context(db, { table: table('miss'), primaryKey: 'id' }))).resolves.toBeUndefined();
      } finally {
        await drop('miss');
      }
    });
  });
}
