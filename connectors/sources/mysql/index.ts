/**
 * The built-in `mysql` source (MySQL and MariaDB): a table or a query,
 * streamed row by row from a server-side prepared statement with TCP
 * backpressure, with keyset-incremental reads on a cursor column and the
 * primary key.
 */
import mysql from 'mysql2';
import type { Connection, ConnectionOptions, TypeCast } from 'mysql2';
import type { SqlColumn } from '../_sql/columns.js';
import type { SqlDialect } from '../_sql/dialect.js';
import { isNetworkError, type FailureKind } from '../_sql/errors.js';
import { quoteIdentifier } from '../_sql/identifiers.js';
import { codeOf, passwordOf, redactUrl } from '../../../src/sdk/index.js';
import type { SqlDriver, SqlRow, SqlSession } from '../_sql/session.js';
import { defineSqlSource } from '../_sql/source.js';
import { tlsSettings } from '../_sql/tls.js';
import { intValue, isoTimestamp } from '../_sql/values.js';
import { describeQuery, describeTable, listTables, query } from './catalog.js';
import { mysqlOptions, type MysqlOptions } from './options.js';

/** ISO text back to what DATETIME(6) parses: `2024-01-02T03:04:05.5Z` → `2024-01-02 03:04:05.5`. */
function mysqlDateTime(text: string): string {
  return text.replace('T', ' ').replace(/Z$/i, '');
}

export const mysqlDialect: SqlDialect = {
  quote: (name) => quoteIdentifier(name, 'backtick'),
  partitionBucket: (keys, count) => `CRC32(CONCAT_WS(CHAR(31), ${keys.join(', ')})) % ${count}`,
  // Values are bound as text and cast to the column's type, so BIGINTs beyond
  // 2^53 and DECIMALs compare exactly instead of as doubles.
  param(params, text, column: SqlColumn) {
    switch (column.kind) {
      case 'int':
      case 'boolean':
        params.push(text === 'true' ? '1' : text === 'false' ? '0' : text);
        return column.unsigned ? 'CAST(? AS UNSIGNED)' : 'CAST(? AS SIGNED)';
      case 'decimal':
        params.push(text);
        return 'CAST(? AS DECIMAL(65,30))';
      case 'float':
        params.push(text);
        return 'CAST(? AS DOUBLE)';
      case 'timestamp':
        params.push(mysqlDateTime(text));
        return 'CAST(? AS DATETIME(6))';
      case 'date':
        params.push(text);
        return 'CAST(? AS DATE)';
      case 'binary':
        params.push(text);
        return 'FROM_BASE64(?)';
      default:
        params.push(text);
        return '?';
    }
  },
  // MariaDB does not use indexes for row-value comparisons; the expanded form does.
  rowValues: false,
  nullsLastByDefault: false,
};

/** Values as ferry emits them: exact integers and decimals, UTC ISO timestamps, booleans, base64 binaries. */
const typeCast: TypeCast = (field, next) => {
  switch (field.type) {
    case 'TINY': {
      const value = next();
      return field.length === 1 && value !== null ? Number(value) !== 0 : value;
    }
    case 'LONGLONG': {
      const value = next();
      return typeof value === 'string' ? intValue(value) : value;
    }
    case 'DATETIME':
    case 'DATETIME2':
    case 'TIMESTAMP':
    case 'TIMESTAMP2': {
      const value = next();
      // Zero dates ('0000-00-00 …') have no instant; they stay as the server wrote them.
      return typeof value === 'string' && !value.startsWith('0000-00-00') ? isoTimestamp(value) : value;
    }
    case 'BIT': {
      const value = next();
      if (!Buffer.isBuffer(value)) return value;
      return field.length === 1 ? value[0] === 1 : intValue(BigInt(`0x${value.toString('hex') || '0'}`).toString());
    }
    default: {
      const value = next();
      return Buffer.isBuffer(value) ? value.toString('base64') : value;
    }
  }
};

const AUTH = new Set(['ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR', 'ER_NOT_SUPPORTED_AUTH_MODE']);
const MISSING = new Set(['ER_BAD_DB_ERROR', 'ER_NO_SUCH_TABLE', 'ER_BAD_FIELD_ERROR', 'ER_BAD_TABLE_ERROR']);
const TIMEOUT = new Set(['ER_STATEMENT_TIMEOUT', 'ER_QUERY_TIMEOUT', 'ER_QUERY_INTERRUPTED']);

function classify(error: unknown): FailureKind {
  const code = codeOf(error);
  if (code !== undefined) {
    if (AUTH.has(code)) return 'auth';
    if (MISSING.has(code)) return 'missing';
    if (TIMEOUT.has(code)) return 'timeout';
    if (code.startsWith('PROTOCOL_') || code.startsWith('HANDSHAKE_') || code === 'ER_CON_COUNT_ERROR') return 'unreachable';
  }
  if (isNetworkError(error)) return 'unreachable';
  return 'failed';
}

function run(conn: Connection, sql: string, values: unknown[] = []): Promise<void> {
  return query(conn, sql, values).then(() => undefined);
}

async function connect(ctx: { options: MysqlOptions; baseDir: string; signal: AbortSignal }): Promise<SqlSession> {
  const { options } = ctx;
  const ssl = tlsSettings(options.ssl, ctx.baseDir);
  const config: ConnectionOptions = {
    uri: options.url.replace(/^mariadb:/i, 'mysql:'),
    ...(ssl ? { ssl } : {}),
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: false,
    timezone: 'Z',
    connectTimeout: 15_000,
    multipleStatements: false,
  };
  const conn = mysql.createConnection(config);
  // Fatal errors also fail the pending command, which is where they are reported.
  conn.on('error', () => undefined);
  let destroyed = false;
  const destroy = (): void => {
    if (destroyed) return;
    destroyed = true;
    conn.destroy();
  };
  ctx.signal.addEventListener('abort', destroy, { once: true });
  try {
    await new Promise<void>((resolve, reject) => conn.connect((error) => (error ? reject(error) : resolve())));
    // TIMESTAMP columns are rendered in UTC; DATETIME has no zone and is read as UTC.
    await run(conn, `SET time_zone = '+00:00'`);
    if (options.statementTimeoutMs !== undefined) {
      const version = await query<mysql.RowDataPacket & { v: string }>(conn, 'SELECT VERSION() AS v');
      const isMariaDb = /mariadb/i.test(String(version.rows[0]?.v ?? ''));
      if (isMariaDb) await run(conn, 'SET SESSION max_statement_time = ?', [options.statementTimeoutMs / 1000]);
      else await run(conn, 'SET SESSION max_execution_time = ?', [options.statementTimeoutMs]);
    }
  } catch (error) {
    ctx.signal.removeEventListener('abort', destroy);
    destroy();
    throw error;
  }

  return {
    describeTable: (table, schema) => describeTable(conn, table, schema),
    describeQuery: (sql) => describeQuery(conn, sql),
    listTables: (schema) => listTables(conn, schema),
    async count(sql) {
      const { rows } = await query<mysql.RowDataPacket & { n: number | string }>(conn, sql);
      return Number(rows[0]?.n ?? 0);
    },
    async *stream(built, _columns, { fetchSize, signal }) {
      const rows = conn.execute({ sql: built.sql, values: built.params, typeCast }).stream({ highWaterMark: fetchSize });
      const onAbort = (): void => {
        rows.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      let done = false;
      try {
        for await (const row of rows as AsyncIterable<SqlRow>) yield row;
        done = true;
      } finally {
        signal.removeEventListener('abort', onAbort);
        // The server is still sending the rest of an unfinished result: drop the connection.
        if (!done) destroy();
      }
    },
    async close() {
      ctx.signal.removeEventListener('abort', destroy);
      if (destroyed) return;
      await new Promise<void>((resolve) => conn.end(() => resolve()));
    },
  };
}

export const mysqlDriver: SqlDriver<MysqlOptions> = {
  database: 'mysql',
  dialect: mysqlDialect,
  target: (ctx) => redactUrl(ctx.options.url),
  secrets: (ctx) => [passwordOf(ctx.options.url)],
  connect,
  classify,
};

export default defineSqlSource({
  name: 'mysql',
  options: mysqlOptions,
  example: { url: 'mysql://ferry:${MYSQL_PASSWORD}@localhost:3306/crm', table: 'deals', primaryKey: 'opportunity_id' },
  driver: mysqlDriver,
});
