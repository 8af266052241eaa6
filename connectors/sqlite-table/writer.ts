/**
 * The open `sqlite-table` destination: one transaction per batch that adds
 * any new columns and upserts every record by the key column. Nested values
 * are stored as JSON text, booleans as 0/1.
 */
import Database from 'better-sqlite3';
import { FerryError, messageOf, type ConnectorContext, type DestinationWriter } from '../../src/sdk/index.js';
import { inferColumns, lastByKey, quoteIdentifier, type ColumnKind } from '../_export/columns.js';
import { assertKeys, keyOf } from '../_export/key.js';
import { outputPath, prepareFolder } from '../_export/paths.js';
import type { SqliteTableOptions } from './options.js';

const SQL_TYPES: Record<ColumnKind, string> = { boolean: 'INTEGER', integer: 'INTEGER', number: 'REAL', text: 'TEXT', json: 'TEXT' };

export async function openSqliteWriter(ctx: ConnectorContext<SqliteTableOptions>): Promise<DestinationWriter> {
  const { options } = ctx;
  const file = outputPath(options.path, ctx.baseDir);
  await prepareFolder(file, 'sqlite-table', ctx.syncName);
  let db: Database.Database;
  try {
    db = new Database(file);
    db.pragma('busy_timeout = 5000');
  } catch (cause) {
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `sqlite-table: cannot open ${file}: ${messageOf(cause)}`, { where: `export ${ctx.syncName}`, cause });
  }
  const table = quoteIdentifier(options.table);
  /** Columns the table has, once it is known to exist. */
  let columns: Set<string> | undefined;
  let keyColumn: string | undefined;
  const statements = new Map<string, Database.Statement>();

  const existingColumns = (): Set<string> => {
    const info = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
    return new Set(info.map((column) => column.name));
  };

  const ensureTable = (kinds: Map<string, ColumnKind>, key: string) => {
    columns ??= existingColumns();
    if (columns.size === 0) {
      const definitions = [...kinds].map(([name, kind]) => `${quoteIdentifier(name)} ${SQL_TYPES[kind]}`);
      if (!kinds.has(key)) definitions.unshift(`${quoteIdentifier(key)} TEXT`);
      db.exec(`CREATE TABLE ${table} (${definitions.join(', ')})`);
      columns = existingColumns();
    }
    for (const [name, kind] of kinds) {
      if (columns.has(name)) continue;
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${quoteIdentifier(name)} ${SQL_TYPES[kind]}`);
      columns.add(name);
    }
    if (keyColumn !== key) {
      if (!columns.has(key)) throw failure(`table ${options.table} has no key column "${key}"`, ctx.syncName);
      // A unique index, not a primary key, so a table that already existed can take upserts too.
      db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS ${quoteIdentifier(`${options.table}__${key}__key`)} ON ${table} (${quoteIdentifier(key)})`);
      keyColumn = key;
    }
  };

  /** The upsert for one set of columns; columns no record of the batch has keep their values. */
  const upsertFor = (names: readonly string[], key: string): Database.Statement => {
    const id = `${key}\u0000${names.join('\u0000')}`;
    let statement = statements.get(id);
    if (!statement) {
      const quoted = names.map(quoteIdentifier);
      const updates = names.filter((name) => name !== key).map((name) => `${quoteIdentifier(name)} = excluded.${quoteIdentifier(name)}`);
      statement = db.prepare(
        `INSERT INTO ${table} (${quoted.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ` +
          `ON CONFLICT (${quoteIdentifier(key)}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`,
      );
      statements.set(id, statement);
    }
    return statement;
  };

  let closed = false;
  return {
    async write(batch) {
      if (batch.records.length === 0) return;
      const key = keyOf(batch, options.key, 'sqlite-table', ctx.syncName);
      assertKeys(batch.records, key, 'sqlite-table', ctx.syncName);
      const records = lastByKey(batch.records, key);
      const kinds = inferColumns(records);
      try {
        db.transaction(() => {
          ensureTable(kinds, key);
          const names = [...kinds.keys()];
          const statement = upsertFor(names, key);
          for (const record of records) statement.run(names.map((name) => encode(record[name])));
        })();
      } catch (cause) {
        if (cause instanceof FerryError) throw cause;
        throw failure(`cannot write ${options.table} in ${file}: ${messageOf(cause)}`, ctx.syncName, cause);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
    async abort() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

function encode(value: unknown): string | number | bigint | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' || typeof value === 'bigint') return value;
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

function failure(message: string, exportName: string, cause?: unknown): FerryError {
  return new FerryError('FERRY_DESTINATION_WRITE_FAILED', `sqlite-table: ${message}`, { where: `export ${exportName}`, ...(cause === undefined ? {} : { cause }) });
}
