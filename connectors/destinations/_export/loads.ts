/**
 * The `_ferry_loads` table of database destinations (sqlite-table,
 * postgres-table, duckdb): one row per completed export run, keyed by its
 * load id, the `_ferry_load_id` of the rows it wrote.
 */
import type { ExportLoad } from '../../../src/sdk/index.js';
import { quoteIdentifier, type ColumnKind } from './columns.js';
import { LOADS_TABLE } from './shape.js';

const COLUMNS: readonly (readonly [string, ColumnKind])[] = [
  ['load_id', 'text'],
  ['export_name', 'text'],
  ['resource', 'text'],
  ['table_name', 'text'],
  ['started_at', 'timestamp'],
  ['finished_at', 'timestamp'],
  ['records_read', 'integer'],
  ['records_written', 'integer'],
  ['records_skipped', 'integer'],
  ['records_deleted', 'integer'],
  // Added after the first layout: a `_ferry_loads` made before gets them by ALTER TABLE (`addColumns`).
  ['records_inserted', 'integer'],
  ['records_updated', 'integer'],
  ['records_unchanged', 'integer'],
];

/** The columns a `_ferry_loads` table made before they existed lacks. */
const ADDED = COLUMNS.slice(10);

export interface LoadsSql {
  create: string;
  /** The table's unqualified name. */
  name: string;
  /** The columns added since the table's first layout, to add where missing: `add` for a table known to lack it, `addIfMissing` (PostgreSQL, DuckDB) otherwise. */
  added: { name: string; add: string; addIfMissing: string }[];
  insert: string;
  values: (string | number | null)[];
}

/**
 * The statements that note a load: the table created when missing, the row
 * inserted (a load noted twice, by a run re-tried after its commit, stays one row).
 * `table` is the qualified, quoted table name; `placeholder` gives the n-th (1-based) parameter.
 */
export function loadsSql(load: ExportLoad, tableName: string, options: { table?: string; types: Readonly<Record<ColumnKind, string>>; placeholder: (n: number) => string }): LoadsSql {
  const table = options.table ?? quoteIdentifier(LOADS_TABLE);
  const definitions = COLUMNS.map(([name, kind], i) => `${quoteIdentifier(name)} ${options.types[kind]}${i === 0 ? ' PRIMARY KEY' : ''}`);
  const names = COLUMNS.map(([name]) => quoteIdentifier(name)).join(', ');
  return {
    create: `CREATE TABLE IF NOT EXISTS ${table} (${definitions.join(', ')})`,
    name: LOADS_TABLE,
    added: ADDED.map(([name, kind]) => {
      const definition = `${quoteIdentifier(name)} ${options.types[kind]}`;
      return { name, add: `ALTER TABLE ${table} ADD COLUMN ${definition}`, addIfMissing: `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${definition}` };
    }),
    insert: `INSERT INTO ${table} (${names}) VALUES (${COLUMNS.map((_, i) => options.placeholder(i + 1)).join(', ')}) ON CONFLICT (${quoteIdentifier('load_id')}) DO NOTHING`,
    values: [load.loadId, load.export, load.resource, tableName, load.startedAt, load.finishedAt, load.read, load.written, load.skipped, load.deleted, load.inserted ?? null, load.updated ?? null, load.unchanged ?? null],
  };
}
