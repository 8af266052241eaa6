/**
 * The open `sqlite-table` destination: one transaction per batch that adds
 * any new columns to each table of the batch (one, or several with `shape:
 * relational`), upserts parent rows by the key column and replaces child
 * rows per parent. Nested values are stored as JSON text, booleans as 0/1.
 */
import Database from 'better-sqlite3';
import { FerryError, type ConnectorContext, type DestinationWriter } from '../../src/sdk/index.js';
import { inferColumns, lastByKey, quoteIdentifier, type ColumnKind } from '../_export/columns.js';
import { assertKeys, keyOf } from '../_export/key.js';
import { messageOf, outputPath, prepareFolder } from '../_export/paths.js';
import { isChildTableOf, shapeBatch, type TableBatch } from '../_export/shape.js';
import type { SqliteTableOptions } from './options.js';

const SQL_TYPES: Record<ColumnKind, string> = { boolean: 'INTEGER', integer: 'INTEGER', number: 'REAL', timestamp: 'TEXT', text: 'TEXT', json: 'TEXT' };

/** What the writer knows of one table: its columns and the index it made sure of. */
interface TableState {
  columns: Set<string>;
  indexed?: string;
}

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
  const tables = new Map<string, TableState>();
  const statements = new Map<string, Database.Statement>();

  const existingColumns = (table: string): Set<string> => {
    const info = db.prepare(`PRAGMA table_info(${quoteIdentifier(table)})`).all() as { name: string }[];
    return new Set(info.map((column) => column.name));
  };

  const ensureTable = (batch: TableBatch, kinds: Map<string, ColumnKind>): void => {
    const table = quoteIdentifier(batch.table);
    let state = tables.get(batch.table);
    if (!state) {
      state = { columns: existingColumns(batch.table) };
      tables.set(batch.table, state);
    }
    if (state.columns.size === 0) {
      const definitions = [...kinds].map(([name, kind]) => `${quoteIdentifier(name)} ${SQL_TYPES[kind]}`);
      db.exec(`CREATE TABLE ${table} (${definitions.join(', ')})`);
      state.columns = existingColumns(batch.table);
    }
    for (const [name, kind] of kinds) {
      if (state.columns.has(name)) continue;
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${quoteIdentifier(name)} ${SQL_TYPES[kind]}`);
      state.columns.add(name);
    }
    const key = batch.key ?? batch.replace!.column;
    if (state.indexed === key) return;
    if (!state.columns.has(key)) throw failure(`table ${batch.table} has no key column "${key}"`, ctx.syncName);
    // Parents: a unique index, not a primary key, so a table that already existed can take upserts too.
    // Children: a plain index on the parent's key, for replacing and joining.
    const unique = batch.key !== undefined;
    const index = quoteIdentifier(`${batch.table}__${key}__${unique ? 'key' : 'parent'}`);
    db.exec(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${index} ON ${table} (${quoteIdentifier(key)})`);
    state.indexed = key;
  };

  /** The insert for one table and set of columns: an upsert by key, or a plain insert for child rows. */
  const insertFor = (batch: TableBatch, names: readonly string[]): Database.Statement => {
    const id = `${batch.table}\u0000${batch.key ?? ''}\u0000${names.join('\u0000')}`;
    let statement = statements.get(id);
    if (!statement) {
      const insert = `INSERT INTO ${quoteIdentifier(batch.table)} (${names.map(quoteIdentifier).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
      statement = db.prepare(batch.key === undefined ? insert : `${insert} ${conflictClause(names, batch.key)}`);
      statements.set(id, statement);
    }
    return statement;
  };

  const writeTable = (batch: TableBatch) => {
    // A child table seen only through empty arrays has nothing to replace until it exists.
    if (batch.rows.length === 0 && (!batch.replace || (tables.get(batch.table)?.columns ?? existingColumns(batch.table)).size === 0)) return;
    const kinds = inferColumns(batch.rows);
    ensureTable(batch, kinds);
    if (batch.replace) {
      const remove = db.prepare(`DELETE FROM ${quoteIdentifier(batch.table)} WHERE ${quoteIdentifier(batch.replace.column)} = ?`);
      for (const id of batch.replace.ids) remove.run(encode(id));
    }
    const names = [...kinds.keys()];
    if (names.length === 0) return;
    const statement = insertFor(batch, names);
    for (const row of batch.rows) statement.run(names.map((name) => encode(row[name])));
  };

  /** Delete the parent rows whose key is not in `keys`, and their child tables' rows. */
  const retainKeys = (key: string, keys: ReadonlySet<string>): number => {
    if (!existingColumns(options.table).has(key)) return 0;
    db.exec('CREATE TEMP TABLE IF NOT EXISTS ferry_live_keys (k TEXT PRIMARY KEY); DELETE FROM temp.ferry_live_keys');
    const insert = db.prepare('INSERT OR IGNORE INTO temp.ferry_live_keys (k) VALUES (?)');
    for (const value of keys) insert.run(value);
    const gone = (table: string) =>
      db.prepare(`DELETE FROM ${quoteIdentifier(table)} WHERE CAST(${quoteIdentifier(key)} AS TEXT) NOT IN (SELECT k FROM temp.ferry_live_keys)`).run().changes;
    const deleted = gone(options.table);
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    for (const { name } of names) if (isChildTableOf(options.table, name) && existingColumns(name).has(key)) gone(name);
    db.exec('DELETE FROM temp.ferry_live_keys');
    return deleted;
  };

  let closed = false;
  return {
    async write(batch) {
      if (batch.records.length === 0) return;
      const key = keyOf(batch, options.key, 'sqlite-table', ctx.syncName);
      assertKeys(batch.records, key, 'sqlite-table', ctx.syncName);
      const shaped = shapeBatch(lastByKey(batch.records, key), options.table, key, options.shape);
      try {
        db.transaction(() => {
          for (const table of shaped) writeTable(table);
        })();
      } catch (cause) {
        // DDL rolled back with the batch: read the tables afresh next time.
        tables.clear();
        statements.clear();
        if (cause instanceof FerryError) throw cause;
        throw failure(`cannot write ${options.table} in ${file}: ${messageOf(cause)}`, ctx.syncName, cause);
      }
    },
    async retain(request) {
      try {
        return db.transaction(() => retainKeys(options.key ?? request.key, request.keys))();
      } catch (cause) {
        throw failure(`cannot delete from ${options.table} in ${file}: ${messageOf(cause)}`, ctx.syncName, cause);
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

/** Columns no record of the batch has keep their values. */
function conflictClause(names: readonly string[], key: string): string {
  const updates = names.filter((name) => name !== key).map((name) => `${quoteIdentifier(name)} = excluded.${quoteIdentifier(name)}`);
  return `ON CONFLICT (${quoteIdentifier(key)}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
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
