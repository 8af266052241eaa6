import { z } from 'zod';
import { shapeOption } from '../_export/shape.js';
import { identifier } from '../sqlite-table/options.js';

/** Options of the built-in `duckdb` destination (everything under `destination:` except `type`). */
export const duckdbOptions = z.strictObject({
  /** The DuckDB database file, relative to the YAML file; created with its folder when missing. @example ../state/exports/warehouse.duckdb */
  path: z.string().min(1),
  /** The table (with `shape: relational`, the parent table; child tables are named after it). Created from the data when missing. */
  table: identifier,
  /** The column records are upserted by. @default the resource's id field (conversationId, messageId, rowId, id, dealId, accountId) */
  key: z.string().min(1).optional(),
  /** json: one table, nested values as JSON columns; relational: arrays of objects as child tables, a row's fields as columns (docs/exports.md). @default json */
  shape: shapeOption,
});

export type DuckdbOptions = z.output<typeof duckdbOptions>;
