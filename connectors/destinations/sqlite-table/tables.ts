/**
 * The tables a `sqlite-table` writer loads, within the caller's transaction:
 * created and given new columns from the data, parent rows upserted by the
 * key column, child rows replaced per parent. Nested values are stored as
 * JSON text, booleans as 0/1.
 */
import type Database from 'better-sqlite3';
import type { ExportLoad, LiveKeys } from '../../../src/sdk/index.js';
import { columnNamed, inferColumns, quoteIdentifier, type ColumnKind } from '../_export/columns.js';
import { loadsSql } from '../_export/loads.js';
import { CHILD_ID_COLUMN, DELETED_AT_COLUMN, isChildTableOf, isTypeTableOf, TYPE_COLUMN, TableProblem, type TableBatch } from '../_export/shape.js';

const SQL_TYPES: Record<ColumnKind, string> = { boolean: 'INTEGER', integer: 'INTEGER', number: 'REAL', timestamp: 'TEXT', date: 'TEXT', text: 'TEXT', json: 'TEXT' };

/** What the writer knows of one table: its columns and the index it made sure of. */
interface TableState {
  columns: Set<string>;
  indexed?: string;
}

export class SqliteTables {
  readonly #db: Database.Database;
  readonly #tables = new Map<string, TableState>();
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Forget what was learnt: the transaction that taught it rolled back. */
  reset(): void {
    this.#tables.clear();
    this.#statements.clear();
  }

  /** Load one table batch. */
  write(batch: TableBatch): void {
    // A child table seen only through empty arrays has nothing to replace until it exists.
    if (batch.rows.length === 0 && (!batch.replace || (this.#tables.get(batch.table)?.columns ?? this.#columns(batch.table)).size === 0)) return;
    const kinds = inferColumns(batch.rows, batch.hints ? { hints: batch.hints } : {});
    this.#ensureTable(batch, kinds);
    if (batch.replace) {
      const remove = this.#db.prepare(`DELETE FROM ${quoteIdentifier(batch.table)} WHERE ${quoteIdentifier(batch.replace.column)} = ?`);
      for (const id of batch.replace.ids) remove.run(encode(id));
    }
    const names = [...kinds.keys()];
    if (names.length === 0) return;
    const statement = this.#insertFor(batch, names);
    for (const row of batch.rows) statement.run(names.map((name) => encode(row[name])));
  }

  /** Delete the rows of `table` whose key is not in `keys`, and their child tables' rows; returns how many parents went. */
  retain(table: string, named: string, keys: LiveKeys, soft?: { deletedAt: string }): number {
    const columns = this.#columns(table);
    const key = columnNamed(named, columns);
    if (key === undefined) return 0;
    this.#db.exec('CREATE TEMP TABLE IF NOT EXISTS ferry_live_keys (k TEXT PRIMARY KEY); DELETE FROM temp.ferry_live_keys');
    const insert = this.#db.prepare('INSERT OR IGNORE INTO temp.ferry_live_keys (k) VALUES (?)');
    for (const value of keys) insert.run(value);
    if (soft) {
      // deletes: soft keeps the rows (and their child rows), marking those not yet marked.
      if (!columns.has(DELETED_AT_COLUMN)) this.#db.exec(`ALTER TABLE ${quoteIdentifier(table)} ADD COLUMN ${quoteIdentifier(DELETED_AT_COLUMN)} TEXT`);
      this.#tables.delete(table);
      const marked = this.#db
        .prepare(
          `UPDATE ${quoteIdentifier(table)} SET ${quoteIdentifier(DELETED_AT_COLUMN)} = ? WHERE ${quoteIdentifier(DELETED_AT_COLUMN)} IS NULL ` +
            `AND CAST(${quoteIdentifier(key)} AS TEXT) NOT IN (SELECT k FROM temp.ferry_live_keys)`,
        )
        .run(soft.deletedAt).changes;
      this.#db.exec('DELETE FROM temp.ferry_live_keys');
      return marked;
    }
    const gone = (name: string) =>
      this.#db.prepare(`DELETE FROM ${quoteIdentifier(name)} WHERE CAST(${quoteIdentifier(key)} AS TEXT) NOT IN (SELECT k FROM temp.ferry_live_keys)`).run().changes;
    const deleted = gone(table);
    const names = this.#db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    for (const { name } of names) if (isChildTableOf(table, name) && this.#columns(name).has(key)) gone(name);
    this.#db.exec('DELETE FROM temp.ferry_live_keys');
    return deleted;
  }

  /** The tables of one object type's rows of `table` (`rows_deal`), which deletions reach as they reach `table`. */
  typeTables(table: string): string[] {
    const names = this.#db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return names.map(({ name }) => name).filter((name) => isTypeTableOf(table, name) && !isChildTableOf(table, name) && this.#columns(name).has(TYPE_COLUMN));
  }

  /** Note a completed run in `_ferry_loads`. */
  recordLoad(load: ExportLoad, table: string): void {
    const sql = loadsSql(load, table, { types: SQL_TYPES, placeholder: () => '?' });
    this.#db.exec(sql.create);
    const columns = this.#columns(sql.name);
    for (const column of sql.added) if (!columns.has(column.name)) this.#db.exec(column.add);
    this.#db.prepare(sql.insert).run(...sql.values);
  }

  #columns(table: string): Set<string> {
    const info = this.#db.prepare(`PRAGMA table_info(${quoteIdentifier(table)})`).all() as { name: string }[];
    return new Set(info.map((column) => column.name));
  }

  #ensureTable(batch: TableBatch, kinds: Map<string, ColumnKind>): void {
    const table = quoteIdentifier(batch.table);
    let state = this.#tables.get(batch.table);
    if (!state) {
      state = { columns: this.#columns(batch.table) };
      this.#tables.set(batch.table, state);
    }
    if (state.columns.size === 0) {
      const definitions = [...kinds].map(([name, kind]) => `${quoteIdentifier(name)} ${SQL_TYPES[kind]}`);
      // The analyst layout's new child tables get a primary key of their own rows: `_ferry_id`.
      if (batch.typed && batch.replace && kinds.has(CHILD_ID_COLUMN)) definitions.push(`PRIMARY KEY (${quoteIdentifier(CHILD_ID_COLUMN)})`);
      this.#db.exec(`CREATE TABLE ${table} (${definitions.join(', ')})`);
      state.columns = this.#columns(batch.table);
    }
    for (const [name, kind] of kinds) {
      if (state.columns.has(name)) continue;
      this.#db.exec(`ALTER TABLE ${table} ADD COLUMN ${quoteIdentifier(name)} ${SQL_TYPES[kind]}`);
      state.columns.add(name);
    }
    this.#ensureIndex(batch, state);
  }

  #ensureIndex(batch: TableBatch, state: TableState): void {
    const key = batch.key ?? batch.replace!.column;
    if (state.indexed === key) return;
    if (!state.columns.has(key)) throw new TableProblem(`table ${batch.table} has no key column "${key}"`);
    // Parents: a unique index, not a primary key, so a table that already existed can take upserts too.
    // Children: a plain index on the parent's key, for replacing and joining.
    const unique = batch.key !== undefined;
    const index = quoteIdentifier(`${batch.table}__${key}__${unique ? 'key' : 'parent'}`);
    this.#db.exec(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${index} ON ${quoteIdentifier(batch.table)} (${quoteIdentifier(key)})`);
    state.indexed = key;
  }

  /** The insert for one table and set of columns: an upsert by key, or a plain insert for child rows. */
  #insertFor(batch: TableBatch, names: readonly string[]): Database.Statement {
    const id = `${batch.table}\u0000${batch.key ?? ''}\u0000${names.join('\u0000')}`;
    let statement = this.#statements.get(id);
    if (!statement) {
      const insert = `INSERT INTO ${quoteIdentifier(batch.table)} (${names.map(quoteIdentifier).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
      statement = this.#db.prepare(batch.key === undefined ? insert : `${insert} ${conflictClause(names, batch.key)}`);
      this.#statements.set(id, statement);
    }
    return statement;
  }
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
