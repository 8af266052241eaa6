import { describe, expect, it } from 'vitest';
import type { SqlColumn } from '../../../connectors/sources/_sql/columns.js';
import { quoteIdentifier, validateIdentifier } from '../../../connectors/sources/_sql/identifiers.js';
import { buildNullCount, buildRead, splitKey, type ReadPlan } from '../../../connectors/sources/_sql/select.js';
import { mysqlDialect } from '../../../connectors/sources/mysql/index.js';
import { postgresDialect } from '../../../connectors/sources/postgres/index.js';
import { sqliteDialect } from '../../../connectors/sources/sqlite/index.js';
import { isFerryError } from '../../../src/sdk/index.js';

const ts: SqlColumn = { name: 'updated_at', dbType: 'timestamptz', kind: 'timestamp', nullable: true, castType: 'timestamp with time zone' };
const region: SqlColumn = { name: 'region', dbType: 'text', kind: 'string', nullable: false, castType: 'text' };
const seq: SqlColumn = { name: 'seq', dbType: 'bigint', kind: 'int', nullable: false, castType: 'bigint' };
const plan = (keys: SqlColumn[] = [region, seq]): ReadPlan => ({ relation: '"deals"', select: [], cursor: ts, keys });

describe('buildRead', () => {
  it('reads everything ordered by key when not incremental', () => {
    expect(buildRead(postgresDialect, plan(), undefined)).toEqual({ sql: 'SELECT * FROM "deals" ORDER BY "region" ASC, "seq" ASC', params: [], mode: 'full' });
  });

  it('uses a typed row-value comparison on PostgreSQL with every value bound', () => {
    const built = buildRead(postgresDialect, plan(), { after: { value: '2024-01-01T00:00:00.123456Z', key: "eu'; DROP TABLE x;--\u001f10" }, nullCursor: 'include' });
    expect(built.sql).toBe(
      'SELECT * FROM "deals" WHERE ("updated_at" IS NULL OR ("updated_at", "region", "seq") > ($1::timestamp with time zone, $2::text, $3::bigint)) ORDER BY "updated_at" ASC NULLS FIRST, "region" ASC, "seq" ASC',
    );
    expect(built.params).toEqual(['2024-01-01T00:00:00.123456Z', "eu'; DROP TABLE x;--", '10']);
    expect(built.mode).toBe('keyset');
  });

  it('expands the comparison on MySQL, casting text parameters to the column type', () => {
    const myTs = { ...ts, dbType: 'datetime(6)' };
    const built = buildRead(mysqlDialect, { relation: '`deals`', select: ['name'], cursor: myTs, keys: [region, { ...seq, unsigned: true }] }, {
      after: { value: '2024-01-01T00:00:00.5Z', key: 'eu\u001f10' },
      nullCursor: 'skip',
    });
    expect(built.sql).toBe(
      'SELECT `name` FROM `deals` WHERE (`updated_at` IS NOT NULL AND (`updated_at` > CAST(? AS DATETIME(6)) OR (`updated_at` = CAST(? AS DATETIME(6)) AND (`region` > ? OR (`region` = ? AND `seq` > CAST(? AS UNSIGNED)))))) ORDER BY `updated_at` ASC, `region` ASC, `seq` ASC',
    );
    expect(built.params).toEqual(['2024-01-01 00:00:00.5', '2024-01-01 00:00:00.5', 'eu', 'eu', '10']);
  });

  it('binds SQLite values in the storage class of the column', () => {
    const intCursor: SqlColumn = { name: 'version', dbType: 'INTEGER', kind: 'int', nullable: true };
    const built = buildRead(sqliteDialect, { relation: '"t"', select: [], cursor: intCursor, keys: [seq] }, { after: { value: '9007199254740993', key: '7' }, nullCursor: 'include' });
    expect(built.params).toEqual([9007199254740993n, 7n]);
    expect(built.sql).toContain('("version", "seq") > (?, ?)');
  });

  it('re-reads ties (>=) when the stored position has no usable key, and applies lag without a key', () => {
    expect(buildRead(postgresDialect, plan(), { after: { value: '5' }, nullCursor: 'include' })).toMatchObject({ mode: 'cursor-inclusive', params: ['5'] });
    // A key of the wrong arity (the primary key changed) also falls back.
    expect(buildRead(postgresDialect, plan(), { after: { value: '5', key: 'only-one' }, nullCursor: 'include' }).mode).toBe('cursor-inclusive');
    const lagged = buildRead(postgresDialect, plan(), { after: { value: '2024-01-01T00:01:00Z', key: 'eu\u001f1' }, lag: 90, nullCursor: 'include' });
    expect(lagged).toMatchObject({ mode: 'lag', params: ['2023-12-31T23:59:30Z'] });
    expect(lagged.sql).toContain('"updated_at" >= $1::timestamp with time zone');
  });

  it('ANDs the where: fragment and counts NULL cursors for nullCursor: skip', () => {
    const withWhere = { ...plan(), where: 'NOT archived' };
    expect(buildRead(postgresDialect, withWhere, { nullCursor: 'skip' }).sql).toBe(
      'SELECT * FROM "deals" WHERE (NOT archived) AND "updated_at" IS NOT NULL ORDER BY "updated_at" ASC NULLS FIRST, "region" ASC, "seq" ASC',
    );
    expect(buildNullCount(postgresDialect, withWhere, ts)).toBe('SELECT count(*) AS n FROM "deals" WHERE (NOT archived) AND "updated_at" IS NULL');
  });

  it('splits tie keys back per key column', () => {
    expect(splitKey('a\u001fb', [region, seq])).toEqual(['a', 'b']);
    expect(splitKey('a', [region, seq])).toBeUndefined();
    expect(splitKey(undefined, [region])).toBeUndefined();
  });
});

describe('identifiers', () => {
  it('quotes per dialect, doubling embedded quotes', () => {
    expect(quoteIdentifier('we"ird', 'ansi')).toBe('"we""ird"');
    expect(quoteIdentifier('we`ird', 'backtick')).toBe('`we``ird`');
    expect(postgresDialect.quote('a b')).toBe('"a b"');
    expect(mysqlDialect.quote('a b')).toBe('`a b`');
  });

  it('refuses empty names, control characters and overlong names', () => {
    for (const bad of ['', 'a\u0000b', 'a\nb', 'x'.repeat(129)]) {
      let error: unknown;
      try {
        validateIdentifier(bad, 'table');
      } catch (caught) {
        error = caught;
      }
      expect(isFerryError(error, 'FERRY_CONFIG_INVALID')).toBe(true);
    }
  });
});
