/**
 * Option fragments every SQL source shares. Each connector builds its own
 * strict zod object from these (plus its connection options) so unknown keys
 * stay errors.
 */
import { z } from 'zod';

/** A primary key: one column or several (a composite key). */
export const primaryKeyOption = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional();

/** TLS for network databases: `true` (verify against the system CAs) or the details. */
export const sslOption = z
  .union([
    z.boolean(),
    z.strictObject({
      rejectUnauthorized: z.boolean().optional().describe('Refuse a server whose certificate does not verify.'),
      ca: z.string().min(1).optional().describe('CA certificate(s): PEM text, or a file path relative to the YAML file.'),
      cert: z.string().min(1).optional().describe('Client certificate for mutual TLS: PEM text or a file path.'),
      key: z.string().min(1).optional().describe('Client private key: PEM text or a file path.'),
    }),
  ])
  .optional();
export type SslInput = z.output<typeof sslOption>;

const SELECT_START = /^\s*(?:(?:--[^\n]*\n|\/\*[\s\S]*?\*\/)\s*)*(select|with)\b/i;

/** The fields of a SQL source's options that are not about connecting. */
export const sqlReadShape = {
  table: z.string().min(1).optional().describe('The table to read (mutually exclusive with `query`). Example: deals.'),
  schema: z.string().min(1).optional().describe('The table\'s schema (PostgreSQL schema, MySQL database); default: the connection\'s.'),
  columns: z.array(z.string().min(1)).min(1).optional().describe('Columns to read; default all. Cursor and key columns are added when missing.'),
  where: z.string().min(1).optional().describe('A SQL condition ANDed to every read of `table` (trusted text from the config). Example: "NOT archived".'),
  query: z
    .string()
    .min(1)
    .refine((text) => SELECT_START.test(text), { message: 'query must be a SELECT (or WITH … SELECT) statement' })
    .transform((text) => text.trim().replace(/;\s*$/, ''))
    .optional().describe('A SELECT to read instead of a table; wrapped as `SELECT * FROM (<query>) AS q`.'),
  primaryKey: primaryKeyOption.describe('Column(s) identifying a row: the origin key and the incremental tie-breaker. Default: the table\'s primary key.'),
  statementTimeoutMs: z.number().int().positive().optional().describe('Abort a statement running longer than this (server-side where the database supports it).'),
  fetchSize: z.number().int().positive().max(100_000).default(1000).describe('Rows per round trip from a server-side cursor.'),
  nullCursor: z.enum(['include', 'skip']).default('include').describe('Rows whose cursor is NULL: `include` reads them on every run (cursor null), `skip` leaves them out and logs how many.'),
};

/** Cross-field rules: `table` xor `query`; `schema`, `columns`, `where` only with `table`. */
export function refineSqlRead(
  options: { table?: string | undefined; query?: string | undefined; schema?: string | undefined; columns?: string[] | undefined; where?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (options.table !== undefined && options.query !== undefined) {
    ctx.addIssue({ code: 'custom', message: 'give either table or query, not both', path: ['query'] });
  }
  if (options.query !== undefined) {
    for (const key of ['schema', 'columns', 'where'] as const) {
      if (options[key] !== undefined) ctx.addIssue({ code: 'custom', message: `${key} only applies to table: (write it into the query)`, path: [key] });
    }
  }
}

/** What the shared SQL source reads from a connector's parsed options. */
export interface SqlReadOptions {
  table?: string | undefined;
  schema?: string | undefined;
  columns?: string[] | undefined;
  where?: string | undefined;
  query?: string | undefined;
  primaryKey?: string | string[] | undefined;
  statementTimeoutMs?: number | undefined;
  fetchSize: number;
  nullCursor: 'include' | 'skip';
}

export function keyList(key: string | readonly string[] | undefined): string[] | undefined {
  if (key === undefined) return undefined;
  return typeof key === 'string' ? [key] : [...key];
}
