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
      /** Refuse a server whose certificate does not verify. @default true */
      rejectUnauthorized: z.boolean().optional(),
      /** CA certificate(s): PEM text, or a file path relative to the YAML file. */
      ca: z.string().min(1).optional(),
      /** Client certificate for mutual TLS: PEM text or a file path. */
      cert: z.string().min(1).optional(),
      /** Client private key: PEM text or a file path. */
      key: z.string().min(1).optional(),
    }),
  ])
  .optional();
export type SslInput = z.output<typeof sslOption>;

const SELECT_START = /^\s*(?:(?:--[^\n]*\n|\/\*[\s\S]*?\*\/)\s*)*(select|with)\b/i;

/** The fields of a SQL source's options that are not about connecting. */
export const sqlReadShape = {
  /** The table to read (mutually exclusive with `query`). @example deals */
  table: z.string().min(1).optional(),
  /** The table's schema (PostgreSQL schema, MySQL database); default: the connection's. */
  schema: z.string().min(1).optional(),
  /** Columns to read; default all. Cursor and key columns are added when missing. */
  columns: z.array(z.string().min(1)).min(1).optional(),
  /** A SQL condition ANDed to every read of `table` (trusted text from the config). @example "NOT archived" */
  where: z.string().min(1).optional(),
  /** A SELECT to read instead of a table; wrapped as `SELECT * FROM (<query>) AS q`. */
  query: z
    .string()
    .min(1)
    .refine((text) => SELECT_START.test(text), { message: 'query must be a SELECT (or WITH … SELECT) statement' })
    .transform((text) => text.trim().replace(/;\s*$/, ''))
    .optional(),
  /** Column(s) identifying a row: the origin key and the incremental tie-breaker. Default: the table's primary key. */
  primaryKey: primaryKeyOption,
  /** Abort a statement running longer than this (server-side where the database supports it). */
  statementTimeoutMs: z.number().int().positive().optional(),
  /** Rows per round trip from a server-side cursor. @default 1000 */
  fetchSize: z.number().int().positive().max(100_000).default(1000),
  /** Rows whose cursor is NULL: `include` reads them on every run (cursor null), `skip` leaves them out and logs how many. @default include */
  nullCursor: z.enum(['include', 'skip']).default('include'),
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
