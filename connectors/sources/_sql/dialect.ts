/**
 * What differs between SQL dialects when building a read: identifier quoting,
 * parameter placeholders and casts, row-value comparison support, and where
 * NULLs sort.
 */
import type { SqlColumn } from './columns.js';

export interface SqlDialect {
  /** Quote a validated identifier. */
  quote(name: string): string;
  /**
   * Push the value for `text` compared against `column` onto `params` and
   * return the SQL that stands for it (a placeholder, with a cast to the
   * column's type where the dialect needs one for a typed comparison).
   */
  param(params: unknown[], text: string, column: SqlColumn): string;
  /** `(a, b) > (x, y)` is supported and uses indexes. */
  rowValues: boolean;
  /** ASC order puts NULLs last unless told otherwise (PostgreSQL). */
  nullsLastByDefault: boolean;
  /**
   * SQL for the partition bucket (0 … `count - 1`) of a row: a stable hash of
   * its key columns (already quoted) modulo `count`, computed by the database
   * so a partitioned read sends only its slice over the wire.
   */
  partitionBucket(keys: readonly string[], count: number): string;
}
