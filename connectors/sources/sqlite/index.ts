/**
 * The built-in `sqlite` source: a table or a query of a database file, read
 * with better-sqlite3's row iterator (one row in memory at a time) on a
 * read-only connection, with keyset-incremental reads like the server
 * databases.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { ColumnKind, SqlColumn, TableInfo } from '../_sql/columns.js';
import type { SqlDialect } from '../_sql/dialect.js';
import type { FailureKind } from '../_sql/errors.js';
import { quoteIdentifier } from '../_sql/identifiers.js';
import type { SqlDriver, SqlRow, SqlSession } from '../_sql/session.js';
import { defineSqlSource } from '../_sql/source.js';
import { fromBigInt } from '../_sql/values.js';
import { FerryError, codeOf, partitionBucket, type SourceValue } from '../../../src/sdk/index.js';
import { sqliteOptions, type SqliteOptions } from './options.js';

/** Tables up to this many rows get an exact count in discover(). */
const COUNT_LIMIT = 100_000;

/** A declared column type to a kind, after SQLite's affinity rules (plus BOOLEAN, DATE, DATETIME, JSON by name). */
export function kindOf(declared: string | null | undefined): ColumnKind {
  const t = (declared ?? '').toUpperCase();
  if (t === '') return 'other';
  if (t.includes('BOOL')) return 'boolean';
  if (t.includes('DATETIME') || t.includes('TIMESTAMP')) return 'timestamp';
  if (t === 'DATE') return 'date';
  if (t.includes('JSON')) return 'json';
  if (t.includes('INT')) return 'int';
  if (t.includes('CLOB') || t.includes('TEXT')) return 'text';
  if (t.includes('CHAR')) return 'string';
  if (t.includes('BLOB')) return 'binary';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'float';
  if (t.includes('NUMERIC') || t.includes('DECIMAL')) return 'decimal';
  return 'other';
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;

/** The SQL function connect() registers for partition buckets. */
const PARTITION_FUNCTION = 'ferry_partition_bucket';

export const sqliteDialect: SqlDialect = {
  quote: (name) => quoteIdentifier(name, 'ansi'),
  // SQLite has no hash function: connect() registers this one.
  partitionBucket: (keys, count) => `${PARTITION_FUNCTION}(${count}, ${keys.join(', ')})`,
  // SQLite orders INTEGER < REAL < TEXT < BLOB across storage classes, so a
  // value is bound in the storage class the column holds it in.
  param(params, text, column: SqlColumn) {
    let value: unknown = text;
    if (column.kind === 'binary') value = Buffer.from(text, 'base64');
    else if (column.kind === 'boolean' && (text === 'true' || text === 'false')) value = text === 'true' ? 1 : 0;
    else if (['int', 'float', 'decimal', 'boolean', 'other'].includes(column.kind) && NUMBER.test(text)) {
      value = INTEGER.test(text) ? BigInt(text) : Number(text);
    }
    params.push(value);
    return '?';
  },
  rowValues: true,
  nullsLastByDefault: false,
};

function convert(value: unknown, kind: ColumnKind): SourceValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return kind === 'boolean' ? value !== 0n : fromBigInt(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (kind === 'boolean' && typeof value === 'number') return value !== 0;
  if (kind === 'json' && typeof value === 'string') {
    try {
      return JSON.parse(value) as SourceValue;
    } catch {
      return value;
    }
  }
  return value as SourceValue;
}

function classify(error: unknown): FailureKind {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : '';
  if (/no such (table|column)/i.test(message)) return 'missing';
  if (code === 'SQLITE_AUTH') return 'auth';
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') return 'unreachable';
  return 'failed';
}

/** The database file an options object names, absolute. */
export function databaseFile(options: SqliteOptions, baseDir: string): string {
  const raw = options.path ?? (options.url ?? '').replace(/^sqlite:(\/\/)?/i, '');
  return resolve(baseDir, raw);
}

function connect(ctx: { options: SqliteOptions; baseDir: string; syncName: string }): Promise<SqlSession> {
  const file = databaseFile(ctx.options, ctx.baseDir);
  if (!existsSync(file)) {
    // Opening would create an empty database, and an empty read looks like "everything was deleted".
    return Promise.reject(
      new FerryError('FERRY_SOURCE_OBJECT_MISSING', `SQLite database ${file} does not exist`, {
        where: `sync ${ctx.syncName}`,
        hint: 'paths resolve against the directory of the YAML file that declares the sync',
      }),
    );
  }
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: ctx.options.statementTimeoutMs ?? 5000 });
  db.function(PARTITION_FUNCTION, { deterministic: true, varargs: true }, (count: unknown, ...keys: unknown[]) =>
    partitionBucket(keys.map((k) => (k instanceof Uint8Array ? Buffer.from(k).toString('base64') : String(k))).join('\u001f'), Number(count)),
  );
  const quote = sqliteDialect.quote;
  const toColumns = (columns: Database.ColumnDefinition[]): SqlColumn[] =>
    columns.map((column) => ({ name: column.name, dbType: column.type ?? '', kind: kindOf(column.type), nullable: true }));

  const session: SqlSession = {
    describeTable: async (table, schema) => describeTable(db, table, schema),
    async describeQuery(query) {
      return toColumns(db.prepare(`SELECT * FROM (${query}) AS q LIMIT 0`).columns());
    },
    async listTables(schema) {
      const master = schema !== undefined ? `${quote(schema)}.sqlite_master` : 'sqlite_master';
      return db
        .prepare<[], { name: string }>(`SELECT name FROM ${master} WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`)
        .all()
        .map((row) => (schema !== undefined ? { name: row.name, schema } : { name: row.name }));
    },
    async count(sql) {
      const row = db.prepare<[], { n: number | bigint }>(sql).get();
      return Number(row?.n ?? 0);
    },
    async *stream(built, _columns, { fetchSize, signal }) {
      const statement = db.prepare(built.sql).safeIntegers(true).raw(true);
      const columns = statement.columns().map((column) => ({ name: column.name, kind: kindOf(column.type) }));
      const rows = statement.iterate(...(built.params)) as IterableIterator<unknown[]>;
      let count = 0;
      try {
        for (const values of rows) {
          const row: SqlRow = {};
          columns.forEach((column, i) => {
            row[column.name] = convert(values[i], column.kind);
          });
          yield row;
          // The iterator is synchronous: give timers (and so abort signals) a turn now and then.
          if (++count % fetchSize === 0) {
            await new Promise((resolveTurn) => setImmediate(resolveTurn));
            if (signal.aborted) throw signal.reason;
          }
        }
      } finally {
        rows.return?.();
      }
    },
    async close() {
      try {
        db.close();
      } catch {
        // Closing twice or after a failed open is harmless.
      }
    },
  };
  return Promise.resolve(session);
}

/** Columns, primary key and (when small) the row count of a table, from its pragma. */
function describeTable(db: Database.Database, table: string, schema: string | undefined): TableInfo | undefined {
  const quote = sqliteDialect.quote;
  const rows = db
    .prepare<[string, string], { name: string; type: string; notnull: number; pk: number }>(
      'SELECT name, type, "notnull" AS "notnull", pk FROM pragma_table_info(?, ?)',
    )
    .all(table, schema ?? 'main');
  if (rows.length === 0) return undefined;
  const relation = schema !== undefined ? `${quote(schema)}.${quote(table)}` : quote(table);
  const counted = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${relation} LIMIT ${COUNT_LIMIT + 1})`).get();
  const primaryKey = rows.filter((row) => row.pk > 0).sort((a, b) => a.pk - b.pk).map((row) => row.name);
  return {
    columns: rows.map((row) => ({ name: row.name, dbType: row.type, kind: kindOf(row.type), nullable: row.notnull === 0 && row.pk === 0 })),
    primaryKey,
    ...(counted && counted.n <= COUNT_LIMIT ? { estimatedCount: counted.n } : {}),
  };
}

export const sqliteDriver: SqlDriver<SqliteOptions> = {
  database: 'sqlite',
  dialect: sqliteDialect,
  target: (ctx) => databaseFile(ctx.options, ctx.baseDir),
  secrets: () => [],
  connect,
  classify,
};

export default defineSqlSource({
  name: 'sqlite',
  options: sqliteOptions,
  example: { path: 'data/crm.db', table: 'deals', primaryKey: 'opportunity_id' },
  driver: sqliteDriver,
});
