import { z } from 'zod';
import { shapeOption } from '../_export/shape.js';

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'must be letters, digits or "_", not starting with a digit (at most 63)');

/** Options of the built-in `postgres-table` destination (everything under `destination:` except `type`). */
export const postgresTableOptions = z.strictObject({
  url: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL').describe('Connection URL; use ${ENV} for the password. Example: postgres://ferry:${WAREHOUSE_PASSWORD}.@db:5432/warehouse'),
  table: identifier.describe('The table; created from the first batch\'s columns when missing, and new columns are added as they appear.'),
  schema: identifier.optional().describe('The schema of the table; created when missing.'),
  key: z.string().min(1).optional().describe('The column records are upserted by.'),
  shape: shapeOption.describe('json: one table, nested values as jsonb; relational: arrays of objects as child tables, a row\'s fields as columns (docs/exports.md).'),
});

export type PostgresTableOptions = z.output<typeof postgresTableOptions>;
