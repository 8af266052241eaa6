/**
 * information_schema queries behind discover() and the pre-read checks.
 * MariaDB's JSON is LONGTEXT with a json_valid() check, found through
 * CHECK_CONSTRAINTS.
 */
import type { Connection, FieldPacket, RowDataPacket } from 'mysql2';
import mysql from 'mysql2';
import type { ColumnKind, SqlColumn, TableInfo } from '../_sql/columns.js';

const INTEGER = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'year']);
const TEXT = new Set(['tinytext', 'text', 'mediumtext', 'longtext']);
const BINARY = new Set(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob']);
const STRING = new Set(['char', 'varchar', 'enum', 'set', 'time', 'uuid', 'inet4', 'inet6']);

/** information_schema DATA_TYPE and COLUMN_TYPE to a column kind. */
export function kindOf(dataType: string, columnType: string): ColumnKind {
  const type = dataType.toLowerCase();
  if (type === 'tinyint' && /^tinyint\(1\)/i.test(columnType)) return 'boolean';
  if (INTEGER.has(type)) return 'int';
  if (type === 'decimal' || type === 'numeric') return 'decimal';
  if (type === 'float' || type === 'double' || type === 'real') return 'float';
  if (type === 'datetime' || type === 'timestamp') return 'timestamp';
  if (type === 'date') return 'date';
  if (type === 'json') return 'json';
  if (TEXT.has(type)) return 'text';
  if (BINARY.has(type)) return 'binary';
  if (STRING.has(type)) return 'string';
  return 'other';
}

export function query<T extends RowDataPacket>(conn: Connection, sql: string, values: unknown[] = []): Promise<{ rows: T[]; fields: FieldPacket[] }> {
  return new Promise((resolve, reject) => {
    conn.query<T[]>({ sql, values }, (error, rows, fields) => (error ? reject(error) : resolve({ rows, fields })));
  });
}

interface ColumnRow extends RowDataPacket {
  name: string;
  data_type: string;
  column_type: string;
  is_nullable: string;
}

export async function describeTable(conn: Connection, table: string, schema: string | undefined): Promise<TableInfo | undefined> {
  const where = 'TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?';
  const found = await query<RowDataPacket & { rows_estimate: number | string | null }>(
    conn,
    `SELECT TABLE_ROWS AS rows_estimate FROM information_schema.TABLES WHERE ${where}`,
    [schema ?? null, table],
  );
  const relation = found.rows[0];
  if (!relation) return undefined;
  const columns = await query<ColumnRow>(
    conn,
    `SELECT COLUMN_NAME AS name, DATA_TYPE AS data_type, COLUMN_TYPE AS column_type, IS_NULLABLE AS is_nullable
       FROM information_schema.COLUMNS WHERE ${where} ORDER BY ORDINAL_POSITION`,
    [schema ?? null, table],
  );
  const key = await query<RowDataPacket & { name: string }>(
    conn,
    `SELECT COLUMN_NAME AS name FROM information_schema.KEY_COLUMN_USAGE
      WHERE ${where} AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`,
    [schema ?? null, table],
  );
  const json = await jsonColumns(conn, table, schema);
  const estimate = relation.rows_estimate === null ? undefined : Number(relation.rows_estimate);
  return {
    columns: columns.rows.map((row) => ({
      name: row.name,
      dbType: json.has(row.name) ? 'json' : row.column_type,
      kind: json.has(row.name) ? 'json' : kindOf(row.data_type, row.column_type),
      nullable: row.is_nullable === 'YES',
      ...(/unsigned/i.test(row.column_type) ? { unsigned: true } : {}),
    })),
    primaryKey: key.rows.map((row) => row.name),
    ...(estimate !== undefined && Number.isFinite(estimate) ? { estimatedCount: estimate } : {}),
  };
}

async function jsonColumns(conn: Connection, table: string, schema: string | undefined): Promise<Set<string>> {
  try {
    const checks = await query<RowDataPacket & { clause: string }>(
      conn,
      `SELECT CHECK_CLAUSE AS clause FROM information_schema.CHECK_CONSTRAINTS
        WHERE CONSTRAINT_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?`,
      [schema ?? null, table],
    );
    const names = checks.rows.map((row) => /^json_valid\(`((?:[^`]|``)+)`\)$/i.exec(String(row.clause).trim())?.[1]);
    return new Set(names.filter((name): name is string => name !== undefined).map((name) => name.replace(/``/g, '`')));
  } catch {
    // MySQL's CHECK_CONSTRAINTS has no TABLE_NAME; MySQL has a real JSON type instead.
    return new Set();
  }
}

const TYPE_NAMES = new Map<number, string>(Object.entries(mysql.Types).map(([name, code]) => [Number(code), name]));
const BINARY_CHARSET = 63;
const UNSIGNED_FLAG = 32;
const NOT_NULL_FLAG = 1;

/** A result column's wire type to a column kind (for `query:` sources). */
export function kindOfField(field: FieldPacket): ColumnKind {
  const name = TYPE_NAMES.get(Number(field.columnType ?? field.type)) ?? '';
  const binary = field.characterSet === BINARY_CHARSET;
  if (name === 'TINY' && field.columnLength === 1) return 'boolean';
  if (['TINY', 'SHORT', 'LONG', 'INT24', 'LONGLONG', 'YEAR'].includes(name)) return 'int';
  if (name === 'DECIMAL' || name === 'NEWDECIMAL') return 'decimal';
  if (name === 'FLOAT' || name === 'DOUBLE') return 'float';
  if (/^(DATETIME|TIMESTAMP)2?$/.test(name)) return 'timestamp';
  if (name === 'DATE' || name === 'NEWDATE') return 'date';
  if (name === 'JSON') return 'json';
  if (/BLOB$/.test(name)) return binary ? 'binary' : 'text';
  if (name === 'STRING' || name === 'VAR_STRING' || name === 'VARCHAR') return binary ? 'binary' : 'string';
  if (name === 'ENUM' || name === 'SET' || name === 'TIME' || name === 'TIME2') return 'string';
  return 'other';
}

export async function describeQuery(conn: Connection, sql: string): Promise<SqlColumn[]> {
  const { fields } = await query(conn, `SELECT * FROM (${sql}) AS q LIMIT 0`);
  return fields.map((field) => {
    const flags = typeof field.flags === 'number' ? field.flags : 0;
    return {
      name: field.name,
      dbType: (TYPE_NAMES.get(Number(field.columnType ?? field.type)) ?? 'unknown').toLowerCase(),
      kind: kindOfField(field),
      nullable: (flags & NOT_NULL_FLAG) === 0,
      ...((flags & UNSIGNED_FLAG) !== 0 ? { unsigned: true } : {}),
    };
  });
}

export async function listTables(conn: Connection, schema: string | undefined): Promise<{ name: string; schema: string }[]> {
  const { rows } = await query<RowDataPacket & { name: string; schema: string }>(
    conn,
    `SELECT TABLE_NAME AS name, TABLE_SCHEMA AS \`schema\` FROM information_schema.TABLES
      WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) ORDER BY TABLE_NAME`,
    [schema ?? null],
  );
  return rows;
}
