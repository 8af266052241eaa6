import { describe, expect, it } from 'vitest';
import { fieldTypeOf } from '../../../connectors/sources/_sql/columns.js';
import { sqlError } from '../../../connectors/sources/_sql/errors.js';
import { lowerCursor } from '../../../connectors/sources/_sql/lag.js';
import { cursorText, fromBigInt, intValue, isoTimestamp } from '../../../connectors/sources/_sql/values.js';
import { kindOf as mysqlKind } from '../../../connectors/sources/mysql/catalog.js';
import { kindOf as pgKind } from '../../../connectors/sources/postgres/catalog.js';
import { kindOf as sqliteKind } from '../../../connectors/sources/sqlite/index.js';
import { compareCursorValues } from '../../../src/sdk/index.js';

describe('value conversion', () => {
  it('keeps integers beyond 2^53 as exact text', () => {
    expect(intValue('42')).toBe(42);
    expect(intValue('9007199254740993')).toBe('9007199254740993');
    expect(intValue('-9223372036854775808')).toBe('-9223372036854775808');
    expect(fromBigInt(7n)).toBe(7);
    expect(fromBigInt(2n ** 63n - 1n)).toBe('9223372036854775807');
  });

  it('turns database timestamps into UTC ISO text without losing microseconds', () => {
    expect(isoTimestamp('2024-03-01 09:15:30.123456+00')).toBe('2024-03-01T09:15:30.123456Z');
    expect(isoTimestamp('2024-03-01 09:15:30.123456+05:30')).toBe('2024-03-01T03:45:30.123456Z');
    expect(isoTimestamp('2024-03-01 00:15:30-02')).toBe('2024-03-01T02:15:30Z');
    expect(isoTimestamp('2024-03-01 09:15:30.5')).toBe('2024-03-01T09:15:30.5Z');
    expect(isoTimestamp('infinity')).toBe('infinity');
  });

  it('emits cursor text exactly and null for NULL', () => {
    expect(cursorText('2024-01-01T00:00:00.000001Z')).toBe('2024-01-01T00:00:00.000001Z');
    expect(cursorText(12)).toBe('12');
    expect(cursorText(null)).toBeNull();
    expect(cursorText(undefined)).toBeNull();
  });
});

describe('lag', () => {
  it('lowers timestamps by seconds keeping the fraction and the zone as written', () => {
    expect(lowerCursor('2024-01-01T00:00:10.123456Z', 60, 'timestamp')).toBe('2023-12-31T23:59:10.123456Z');
    expect(lowerCursor('2024-01-01 00:00:10.123456', 0.5, 'timestamp')).toBe('2024-01-01 00:00:09.623456');
    expect(lowerCursor('2024-03-01T00:00:00+02:00', 3600, 'timestamp')).toBe('2024-02-29T23:00:00+02:00');
    const lowered = lowerCursor('2024-01-01T00:00:10.000001Z', 1, 'timestamp');
    expect(compareCursorValues(lowered, '2024-01-01T00:00:09Z')).toBeGreaterThan(0);
  });

  it('lowers numbers exactly, even beyond 2^53 and with decimals', () => {
    expect(lowerCursor('9007199254740993', 1, 'int')).toBe('9007199254740992');
    expect(lowerCursor('12345678901234567890.0123456789', 0.5, 'decimal')).toBe('12345678901234567889.5123456789');
    expect(lowerCursor('3', 5, 'int')).toBe('-2');
  });

  it('lowers dates by whole days, rounding down', () => {
    expect(lowerCursor('2024-03-01', 3600, 'date')).toBe('2024-02-29');
    expect(lowerCursor('2024-03-01', 86_400 * 2, 'date')).toBe('2024-02-28');
  });

  it('leaves values it cannot lower (and lag 0) alone', () => {
    expect(lowerCursor('abc', 10, 'string')).toBe('abc');
    expect(lowerCursor('2024-03-01', 0, 'date')).toBe('2024-03-01');
  });
});

describe('sql errors', () => {
  it('builds errors whose message, cause and details never hold the password', () => {
    const cause = Object.assign(new Error('connect to postgres://u:hunter2@h/db failed (hunter2)'), { code: 'ECONNREFUSED' });
    const error = sqlError('unreachable', { syncName: 's', database: 'postgres', target: 'postgres://u:***@h/db', secrets: ['hunter2'] }, 'cannot connect', cause);
    expect(error.code).toBe('FERRY_SOURCE_UNREACHABLE');
    expect(error.retryable).toBe(true);
    const text = [error.message, error.describe(), JSON.stringify(error.details), (error.cause as Error).message].join(' ');
    expect(text).not.toContain('hunter2');
    expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });
});

describe('type mapping', () => {
  it('maps PostgreSQL types', () => {
    const map = (base: string, category = 'N') => fieldTypeOf(pgKind(base, category));
    expect(map('bigint')).toBe('int');
    expect(map('numeric')).toBe('double');
    expect(map('boolean', 'B')).toBe('boolean');
    expect(map('timestamp with time zone', 'D')).toBe('datetime');
    expect(map('date', 'D')).toBe('date');
    expect(map('character varying', 'S')).toBe('string');
    expect(map('text', 'S')).toBe('textarea');
    expect(map('jsonb', 'U')).toBe('textarea');
    expect(map('integer[]', 'A')).toBe('list');
    expect(map('bytea', 'U')).toBe('textarea');
    expect(map('interval', 'T')).toBe('string');
  });

  it('maps MySQL/MariaDB types, tinyint(1) as boolean', () => {
    const map = (data: string, column = data) => fieldTypeOf(mysqlKind(data, column));
    expect(map('tinyint', 'tinyint(1)')).toBe('boolean');
    expect(map('tinyint', 'tinyint(4)')).toBe('int');
    expect(map('bigint', 'bigint(20) unsigned')).toBe('int');
    expect(map('decimal', 'decimal(30,10)')).toBe('double');
    expect(map('datetime')).toBe('datetime');
    expect(map('date')).toBe('date');
    expect(map('varchar', 'varchar(20)')).toBe('string');
    expect(map('longtext')).toBe('textarea');
    expect(map('json')).toBe('textarea');
    expect(map('blob')).toBe('textarea');
  });

  it('maps SQLite declared types by affinity', () => {
    const map = (declared: string | null) => fieldTypeOf(sqliteKind(declared));
    expect(map('INTEGER')).toBe('int');
    expect(map('BIGINT')).toBe('int');
    expect(map('BOOLEAN')).toBe('boolean');
    expect(map('DATETIME')).toBe('datetime');
    expect(map('DATE')).toBe('date');
    expect(map('REAL')).toBe('double');
    expect(map('DECIMAL(10,2)')).toBe('double');
    expect(map('VARCHAR(20)')).toBe('string');
    expect(map('TEXT')).toBe('textarea');
    expect(map('BLOB')).toBe('textarea');
    expect(map(null)).toBe('string');
  });
});
