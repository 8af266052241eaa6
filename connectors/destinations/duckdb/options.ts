import { z } from 'zod';
import { shapeOption } from '../_export/shape.js';
import { identifier } from '../sqlite-table/options.js';

/** Options of the built-in `duckdb` destination (everything under `destination:` except `type`). */
export const duckdbOptions = z.strictObject({
  path: z.string().min(1).describe('The DuckDB database file, relative to the YAML file; created with its folder when missing. Example: ../state/exports/warehouse.duckdb.'),
  table: identifier.describe('The table (with `shape: relational`, the parent table; child tables are named after it). Created from the data when missing.'),
  key: z.string().min(1).optional().describe('The column records are upserted by.'),
  shape: shapeOption.describe('json: one table, nested values as JSON columns; relational: arrays of objects as child tables, a row\'s fields as columns (docs/exports.md).'),
});

export type DuckdbOptions = z.output<typeof duckdbOptions>;
