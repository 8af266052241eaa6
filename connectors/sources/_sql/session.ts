/**
 * The small surface a SQL driver implements; the shared source in
 * `source.ts` does everything else (plans, incremental SQL, origins, errors).
 */
import type { ConnectorContext, SourceValue } from '../../../src/sdk/index.js';
import type { SqlColumn, TableInfo } from './columns.js';
import type { SqlDialect } from './dialect.js';
import type { FailureKind } from './errors.js';
import type { SqlReadOptions } from './options.js';
import type { BuiltQuery } from './select.js';

export type SqlRow = Record<string, SourceValue>;

/** One open connection. */
export interface SqlSession {
  /** Columns, primary key and a cheap row estimate; undefined when the table does not exist. */
  describeTable(table: string, schema: string | undefined): Promise<TableInfo | undefined>;
  /** The columns a query returns, without running it to completion. */
  describeQuery(query: string): Promise<SqlColumn[]>;
  /** Tables and views, for discover() without a configured table. */
  listTables(schema: string | undefined): Promise<{ name: string; schema?: string }[]>;
  /** Run a `SELECT count(*) AS n …` without parameters. */
  count(sql: string): Promise<number>;
  /**
   * Stream the rows of a query with converted values, holding at most about
   * `fetchSize` rows in memory. Aborting `signal` must close the cursor or
   * connection so the pending fetch rejects.
   */
  stream(query: BuiltQuery, columns: readonly SqlColumn[], options: { fetchSize: number; signal: AbortSignal }): AsyncIterable<SqlRow>;
  /** Release the connection; never throws. */
  close(): Promise<void>;
}

/** A database driver: how to connect, which dialect, and what its errors mean. */
export interface SqlDriver<Options extends SqlReadOptions> {
  /** `postgres`, `mysql`, `sqlite`: used in messages. */
  database: string;
  dialect: SqlDialect;
  /** Where the connector connects, credentials masked. */
  target(ctx: ConnectorContext<Options>): string;
  /** Secrets that must never appear in a message. */
  secrets(ctx: ConnectorContext<Options>): (string | undefined)[];
  connect(ctx: ConnectorContext<Options>): Promise<SqlSession>;
  classify(error: unknown): FailureKind;
}
