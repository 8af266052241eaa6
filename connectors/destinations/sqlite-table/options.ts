import { z } from 'zod';
import { shapeOption } from '../_export/shape.js';

/** A table or schema name: letters, digits and underscores, not starting with a digit. */
export const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'must be letters, digits or "_", not starting with a digit (at most 63)');

/** Options of the built-in `sqlite-table` destination (everything under `destination:` except `type`). */
export const sqliteTableOptions = z.strictObject({
  path: z.string().min(1).describe('The SQLite database file, relative to the YAML file; created with its folder when missing. Example: ../state/exports/warehouse.db.'),
  table: identifier.describe('The table; created from the first batch\'s columns when missing, and new columns are added as they appear.'),
  key: z.string().min(1).optional().describe('The column records are upserted by.'),
  shape: shapeOption.describe('json: one table, nested values as JSON text; relational: arrays of objects as child tables, a row\'s fields as columns (docs/exports.md).'),
});

export type SqliteTableOptions = z.output<typeof sqliteTableOptions>;
