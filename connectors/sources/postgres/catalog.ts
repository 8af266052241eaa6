/**
 * The PostgreSQL catalog queries behind discover() and the pre-read checks:
 * columns with their types, the primary key, and pg_class.reltuples as a
 * cheap row estimate.
 */
import type pg from 'pg';
import type { ColumnKind, SqlColumn, TableInfo } from '../_sql/columns.js';

const INT = new Set(['smallint', 'integer', 'bigint', 'oid']);
const STRING = new Set(['character varying', 'character', '"char"', 'name', 'citext', 'uuid']);

/** A PostgreSQL type (format_type name without modifier, pg_type.typcategory) to a column kind. */
export function kindOf(baseType: string, category: string): ColumnKind {
  if (category === 'A') return 'array';
  if (INT.has(baseType)) return 'int';
  if (baseType === 'numeric') return 'decimal';
  if (baseType === 'real' || baseType === 'double precision') return 'float';
  if (baseType === 'boolean') return 'boolean';
  if (baseType === 'timestamp with time zone' || baseType === 'timestamp without time zone') return 'timestamp';
  if (baseType === 'date') return 'date';
  if (baseType === 'text') return 'text';
  if (STRING.has(baseType)) return 'string';
  if (baseType === 'json' || baseType === 'jsonb') return 'json';
  if (baseType === 'bytea') return 'binary';
  return 'other';
}

interface ColumnRow {
  name: string;
  full_type: string;
  base_type: string;
  category: string;
  nullable: boolean;
}

function toColumn(row: ColumnRow): SqlColumn {
  return { name: row.name, dbType: row.full_type, kind: kindOf(row.base_type, row.category), nullable: row.nullable, castType: row.base_type };
}

export async function describeTable(client: pg.Client, table: string, schema: string | undefined): Promise<TableInfo | undefined> {
  // to_regclass resolves an unqualified name through search_path, like the read will.
  const found = await client.query<{ oid: number; reltuples: number; relkind: string }>(
    `SELECT c.oid::int8 AS oid, c.reltuples::float8 AS reltuples, c.relkind
       FROM pg_class c
      WHERE c.oid = to_regclass(CASE WHEN $2::text IS NULL THEN quote_ident($1::text) ELSE quote_ident($2::text) || '.' || quote_ident($1::text) END)`,
    [table, schema ?? null],
  );
  const relation = found.rows[0];
  if (!relation) return undefined;
  const columns = await client.query<ColumnRow>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS full_type,
            format_type(COALESCE(NULLIF(t.typbasetype, 0), a.atttypid), NULL) AS base_type,
            COALESCE(bt.typcategory, t.typcategory) AS category, NOT a.attnotnull AS nullable
       FROM pg_attribute a
       JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_type bt ON bt.oid = NULLIF(t.typbasetype, 0)
      WHERE a.attrelid = $1::int8::oid AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [relation.oid],
  );
  const key = await client.query<{ name: string }>(
    `SELECT a.attname AS name
       FROM pg_index i
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indrelid = $1::int8::oid AND i.indisprimary
      ORDER BY k.ord`,
    [relation.oid],
  );
  // reltuples is -1 until the table is first analyzed (and 0 for views).
  const estimate = relation.relkind === 'r' || relation.relkind === 'p' || relation.relkind === 'm' ? Math.round(relation.reltuples) : -1;
  return {
    columns: columns.rows.map(toColumn),
    primaryKey: key.rows.map((row) => row.name),
    ...(estimate >= 0 ? { estimatedCount: estimate } : {}),
  };
}

export async function describeQuery(client: pg.Client, query: string): Promise<SqlColumn[]> {
  const result = await client.query(`SELECT * FROM (${query}) AS q LIMIT 0`);
  const oids = [...new Set(result.fields.map((field) => field.dataTypeID))];
  const types = await client.query<{ oid: number; base_type: string; category: string }>(
    `SELECT t.oid::int8 AS oid, format_type(COALESCE(NULLIF(t.typbasetype, 0), t.oid), NULL) AS base_type,
            COALESCE(bt.typcategory, t.typcategory) AS category
       FROM pg_type t LEFT JOIN pg_type bt ON bt.oid = NULLIF(t.typbasetype, 0)
      WHERE t.oid = ANY($1::int8[]::oid[])`,
    [oids],
  );
  const byOid = new Map(types.rows.map((row) => [Number(row.oid), row]));
  return result.fields.map((field) => {
    const type = byOid.get(field.dataTypeID);
    const base = type?.base_type ?? 'unknown';
    return { name: field.name, dbType: base, kind: kindOf(base, type?.category ?? ''), nullable: true, castType: base };
  });
}

export async function listTables(client: pg.Client, schema: string | undefined): Promise<{ name: string; schema: string }[]> {
  const result = await client.query<{ name: string; schema: string }>(
    `SELECT c.relname AS name, n.nspname AS schema
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'v', 'm')
        AND CASE WHEN $1::text IS NULL THEN n.nspname = ANY(current_schemas(false)) ELSE n.nspname = $1::text END
      ORDER BY n.nspname, c.relname`,
    [schema ?? null],
  );
  return result.rows;
}
