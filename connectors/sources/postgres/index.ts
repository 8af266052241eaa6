/**
 * The built-in `postgres` source: a table or a query, streamed through a
 * server-side cursor (pg-cursor, `fetchSize` rows per round trip), with
 * keyset-incremental reads on a cursor column and the primary key.
 */
import pg from 'pg';
import Cursor from 'pg-cursor';
import type { SqlColumn } from '../_sql/columns.js';
import type { SqlDialect } from '../_sql/dialect.js';
import { isNetworkError, type FailureKind } from '../_sql/errors.js';
import { quoteIdentifier } from '../_sql/identifiers.js';
import { codeOf, passwordOf, redactUrl } from '../../../src/sdk/index.js';
import type { SqlDriver, SqlRow, SqlSession } from '../_sql/session.js';
import { defineSqlSource } from '../_sql/source.js';
import { tlsSettings } from '../_sql/tls.js';
import { describeQuery, describeTable, listTables } from './catalog.js';
import { postgresOptions, type PostgresOptions } from './options.js';
import { typeParsers } from './type-parsers.js';

export const postgresDialect: SqlDialect = {
  quote: (name) => quoteIdentifier(name, 'ansi'),
  // hashtext() is signed: the double modulo keeps the bucket non-negative.
  partitionBucket: (keys, count) => `((hashtext(concat_ws(chr(31), ${keys.map((k) => `${k}::text`).join(', ')})) % ${count}) + ${count}) % ${count}`,
  param(params, text, column: SqlColumn) {
    if (column.kind === 'binary') {
      params.push(text);
      return `decode($${params.length}::text, 'base64')`;
    }
    params.push(text);
    // Text bound and cast to the column's type: numerics and timestamps compare exactly.
    return column.castType && column.castType !== 'unknown' ? `$${params.length}::${column.castType}` : `$${params.length}`;
  },
  rowValues: true,
  nullsLastByDefault: true,
};

const AUTH = new Set(['28P01', '28000']);
const MISSING = new Set(['3D000', '42P01', '42703', '3F000', '42704']);

function classify(error: unknown): FailureKind {
  const code = codeOf(error);
  if (code !== undefined) {
    if (AUTH.has(code)) return 'auth';
    if (MISSING.has(code)) return 'missing';
    if (code === '57014') return 'timeout';
    if (code.startsWith('08') || code === '57P01' || code === '57P03') return 'unreachable';
  }
  if (isNetworkError(error)) return 'unreachable';
  const message = error instanceof Error ? error.message : '';
  if (/Connection terminated|timeout expired|does not support SSL|self[- ]signed|certificate/i.test(message)) return 'unreachable';
  return 'failed';
}

async function connect(ctx: { options: PostgresOptions; baseDir: string; signal: AbortSignal }): Promise<SqlSession> {
  const { options } = ctx;
  const ssl = tlsSettings(options.ssl, ctx.baseDir);
  const client = new pg.Client({
    connectionString: options.url,
    ...(ssl !== undefined ? { ssl } : {}),
    ...(options.statementTimeoutMs !== undefined ? { statement_timeout: options.statementTimeoutMs } : {}),
    application_name: 'ferry',
    connectionTimeoutMillis: 15_000,
    types: typeParsers,
  });
  // A dropped connection also fails the pending query, which is where it is reported.
  client.on('error', () => undefined);
  let ended: Promise<void> | undefined;
  const end = (): Promise<void> => (ended ??= client.end().catch(() => undefined));
  const onAbort = (): void => void end();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await client.connect();
    // Timestamps arrive as UTC text with every fractional digit; dates as YYYY-MM-DD.
    await client.query(`SET TimeZone TO 'UTC'; SET DateStyle TO 'ISO, YMD'; SET IntervalStyle TO 'iso_8601'`);
  } catch (error) {
    ctx.signal.removeEventListener('abort', onAbort);
    await end();
    throw error;
  }

  return {
    describeTable: (table, schema) => describeTable(client, table, schema),
    describeQuery: (query) => describeQuery(client, query),
    listTables: (schema) => listTables(client, schema),
    async count(sql) {
      const result = await client.query<{ n: number | string }>(sql);
      return Number(result.rows[0]?.n ?? 0);
    },
    async *stream(query, _columns, { fetchSize, signal }) {
      const cursor = client.query(new Cursor<SqlRow>(query.sql, query.params, { types: typeParsers }));
      let done = false;
      try {
        for (;;) {
          const rows = await cursor.read(fetchSize);
          if (rows.length === 0) {
            done = true;
            return;
          }
          yield* rows;
        }
      } finally {
        // An aborted read has ended the connection; an early return closes the portal.
        if (!done && !signal.aborted) await cursor.close().catch(() => undefined);
      }
    },
    async close() {
      ctx.signal.removeEventListener('abort', onAbort);
      await end();
    },
  };
}

export const postgresDriver: SqlDriver<PostgresOptions> = {
  database: 'postgres',
  dialect: postgresDialect,
  target: (ctx) => redactUrl(ctx.options.url),
  secrets: (ctx) => [passwordOf(ctx.options.url)],
  connect,
  classify,
};

export default defineSqlSource({
  name: 'postgres',
  options: postgresOptions,
  example: { url: 'postgres://ferry:${PGPASSWORD}@localhost:5432/crm', table: 'deals', primaryKey: 'opportunity_id' },
  driver: postgresDriver,
});
