import { z } from 'zod';
import { shapeOption } from '../_export/shape.js';

/** A table or schema name: letters, digits and underscores, not starting with a digit. */
export const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'must be letters, digits or "_", not starting with a digit (at most 63)');

/** Options of the built-in `sqlite-table` destination (everything under `destination:` except `type`). */
export const sqliteTableOptions = z.strictObject({
  /** The SQLite database file, relative to the YAML file; created with its folder when missing. @example ../state/exports/warehouse.db */
  path: z.string().min(1),
  /** The table; created from the first batch's columns when missing, and new columns are added as they appear. */
  table: identifier,
  /** The column records are upserted by. @default the resource's id field (conversationId, messageId, rowId, id, dealId, accountId) */
  key: z.string().min(1).optional(),
  /** json: one table, nested values as JSON text; relational: arrays of objects as child tables, a row's fields as columns (docs/exports.md). @default json */
  shape: shapeOption,
});

export type SqliteTableOptions = z.output<typeof sqliteTableOptions>;
