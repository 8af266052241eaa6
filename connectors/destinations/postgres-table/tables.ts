/**
 * The tables a `postgres-table` writer loads, within the caller's
 * transaction: created and given new columns from the data, widened to text
 * when a column's values change kind, and loaded with COPY (see load()):
 * parent rows straight in when their keys are all new, else through a
 * session-local staging table merged with `INSERT … SELECT … ON CONFLICT
 * (key) DO UPDATE`; child rows replacing their parents' old rows.
 */
import type pg from 'pg';
import { inChunks, type ConnectorLogger, type ExportLoad, type LiveKeys } from '../../../src/sdk/index.js';
import { columnNamed, inferColumns, keyText, quoteIdentifier, widenings, type ColumnKind } from '../_export/columns.js';
import { loadsSql } from '../_export/loads.js';
import { CHILD_ID_COLUMN, DELETED_AT_COLUMN, isChildTableOf, isTypeTableOf, TYPE_COLUMN, LOADS_TABLE, TableProblem, type TableBatch } from '../_export/shape.js';
import { copyRows } from './copy.js';

const SQL_TYPES: Record<ColumnKind, string> = { boolean: 'boolean', integer: 'numeric', number: 'numeric', timestamp: 'timestamptz', date: 'date', text: 'text', json: 'jsonb' };
/** The analyst layout's types (naming: snake_case): integers bigint, decimals double precision, and timestamps and dates found in strings. */
const TYPED_SQL_TYPES: Record<ColumnKind, string> = { ...SQL_TYPES, integer: 'bigint', number: 'double precision' };
/** information_schema data types ferry creates, as kinds; other types are the user's and never widened. */
const KINDS_OF_TYPES: Readonly<Record<string, ColumnKind>> = {
  boolean: 'boolean',
  numeric: 'number',
  bigint: 'integer',
  'double precision': 'number',
  'timestamp with time zone': 'timestamp',
  date: 'date',
  text: 'text',
  jsonb: 'json',
};
/** The temporary table of the keys a mirroring export keeps. */
const LIVE = 'ferry_live_keys';
/** Live keys per COPY under `deletes: mirror`: a few hundred KB of text each, never the whole list at once. */
const LIVE_KEYS_PER_COPY = 10_000;
/** Keys remembered per table before asking Postgres instead (about 50 MB of short ids). */
const MAX_OWN_KEYS = 1_000_000;

/** What the writer knows of one target table. */
interface TableState {
  /** Column name → information_schema data type. */
  columns: Map<string, string>;
  /** The key it made sure has a unique index. */
  uniqueKey?: string;
  parentIndexed?: boolean;
  /** Whether the writer looked if the table was empty when it first loaded it. */
  emptyChecked?: boolean;
  /** The keys this writer loaded into a table that was empty: the table's only keys. */
  ownKeys?: Set<string>;
}

export class PostgresTables {
  readonly #client: pg.Client;
  readonly #schema: string | undefined;
  readonly #logger: ConnectorLogger;
  #tables = new Map<string, TableState>();
  /** Staging tables of this session, by target table and column list; emptied by every commit. */
  #stages = new Map<string, string>();
  #stageCount = 0;
  #schemaReady = false;

  constructor(client: pg.Client, schema: string | undefined, logger: ConnectorLogger) {
    this.#client = client;
    this.#schema = schema;
    this.#logger = logger;
  }

  /** Forget what was learnt: the transaction that taught it rolled back. */
  reset(): void {
    this.#tables.clear();
    this.#stages.clear();
    this.#schemaReady = false;
  }

  /** Load one table batch. */
  async write(batch: TableBatch): Promise<void> {
    // A child table seen only through empty arrays has nothing to replace until it exists.
    if (batch.rows.length === 0 && (!batch.replace || !(await this.#exists(batch.table)))) return;
    const kinds = inferColumns(batch.rows, batch.typed ? { timestamps: true, dates: true, ...(batch.hints ? { hints: batch.hints } : {}) } : {});
    if (batch.replace && !kinds.has(batch.replace.column)) kinds.set(batch.replace.column, 'text');
    const state = await this.#ensureTable(batch, kinds);
    await this.#load(batch, state, [...kinds.keys()]);
  }

  /** Delete the rows of `table` whose key is not in `keys`, and their child tables' rows; returns how many parents went. */
  async retain(table: string, named: string, keys: LiveKeys, soft?: { deletedAt: string }): Promise<number> {
    const key = columnNamed(named, (await this.#readColumns(table)).keys());
    if (key === undefined) return 0;
    await this.#client.query(`CREATE TEMP TABLE IF NOT EXISTS ${LIVE} (k text) ON COMMIT DROP`);
    for (const chunk of inChunks(keys, LIVE_KEYS_PER_COPY)) await copyRows(this.#client, LIVE, ['k'], ['text'], chunk.map((k) => ({ k })));
    if (soft) {
      // deletes: soft keeps the rows (and their child rows), marking those not yet marked.
      const column = quoteIdentifier(DELETED_AT_COLUMN);
      await this.#client.query(`ALTER TABLE ${this.#qualified(table)} ADD COLUMN IF NOT EXISTS ${column} timestamptz`);
      this.#tables.delete(table);
      const marked = await this.#client.query(
        `UPDATE ${this.#qualified(table)} AS x SET ${column} = $1 WHERE x.${column} IS NULL ` +
          `AND NOT EXISTS (SELECT 1 FROM ${LIVE} AS l WHERE l.k = x.${quoteIdentifier(key)}::text)`,
        [soft.deletedAt],
      );
      return marked.rowCount ?? 0;
    }
    const gone = (name: string) =>
      `DELETE FROM ${this.#qualified(name)} AS x WHERE NOT EXISTS (SELECT 1 FROM ${LIVE} AS l WHERE l.k = x.${quoteIdentifier(key)}::text)`;
    const deleted = (await this.#client.query(gone(table))).rowCount ?? 0;
    const children = await this.#client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.columns WHERE table_schema = COALESCE($1, current_schema()) AND column_name = $2',
      [this.#schema ?? null, key],
    );
    for (const { table_name: child } of children.rows) if (isChildTableOf(table, child)) await this.#client.query(gone(child));
    return deleted;
  }

  /** The tables of one object type's rows of `table` (`rows_deal`), which deletions reach as they reach `table`. */
  async typeTables(table: string): Promise<string[]> {
    const result = await this.#client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.columns WHERE table_schema = COALESCE($1, current_schema()) AND column_name = $2',
      [this.#schema ?? null, TYPE_COLUMN],
    );
    return result.rows.map((row) => row.table_name).filter((name) => isTypeTableOf(table, name) && !isChildTableOf(table, name));
  }

  /** Note a completed run in `_ferry_loads`, beside the table. */
  async recordLoad(load: ExportLoad, table: string): Promise<void> {
    if (this.#schema) await this.#client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(this.#schema)}`);
    const sql = loadsSql(load, table, { table: this.#qualified(LOADS_TABLE), types: { ...SQL_TYPES, integer: 'bigint' }, placeholder: (n) => `$${n}` });
    await this.#client.query(sql.create);
    for (const column of sql.added) await this.#client.query(column.addIfMissing);
    await this.#client.query(sql.insert, sql.values);
  }

  #qualified(name: string): string {
    return this.#schema ? `${quoteIdentifier(this.#schema)}.${quoteIdentifier(name)}` : quoteIdentifier(name);
  }

  async #readColumns(table: string): Promise<Map<string, string>> {
    const result = await this.#client.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = COALESCE($1, current_schema()) AND table_name = $2 ORDER BY ordinal_position`,
      [this.#schema ?? null, table],
    );
    return new Map(result.rows.map((row) => [row.column_name, row.data_type]));
  }

  async #exists(table: string): Promise<boolean> {
    return (this.#tables.get(table)?.columns.size ?? (await this.#readColumns(table)).size) > 0;
  }

  async #ensureTable(batch: TableBatch, kinds: Map<string, ColumnKind>): Promise<TableState> {
    if (!this.#schemaReady && this.#schema) await this.#client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(this.#schema)}`);
    this.#schemaReady = true;
    let state = this.#tables.get(batch.table);
    if (!state) {
      state = { columns: await this.#readColumns(batch.table) };
      this.#tables.set(batch.table, state);
    }
    await this.#addColumns(batch, state, kinds);
    await this.#widenColumns(batch, state, kinds);
    await this.#ensureIndexes(batch, state);
    return state;
  }

  async #addColumns(batch: TableBatch, state: TableState, kinds: Map<string, ColumnKind>): Promise<void> {
    const { table } = batch;
    const types = batch.typed ? TYPED_SQL_TYPES : SQL_TYPES;
    const target = this.#qualified(table);
    if (state.columns.size === 0) {
      const definitions = [...kinds].map(([name, kind]) => `${quoteIdentifier(name)} ${types[kind]}`);
      // The analyst layout's new tables get a primary key: the record's key, or a child row's own.
      const primary = batch.typed ? (batch.key ?? (kinds.has(CHILD_ID_COLUMN) ? CHILD_ID_COLUMN : undefined)) : undefined;
      if (primary !== undefined && kinds.has(primary)) definitions.push(`PRIMARY KEY (${quoteIdentifier(primary)})`);
      await this.#client.query(`CREATE TABLE IF NOT EXISTS ${target} (${definitions.join(', ')})`);
      state.columns = await this.#readColumns(table);
      if (primary !== undefined && batch.key === primary) state.uniqueKey = primary;
    }
    const added = [...kinds].filter(([name]) => !state.columns.has(name));
    if (added.length === 0) return;
    await this.#client.query(`ALTER TABLE ${target} ${added.map(([name, kind]) => `ADD COLUMN IF NOT EXISTS ${quoteIdentifier(name)} ${types[kind]}`).join(', ')}`);
    state.columns = await this.#readColumns(table);
  }

  async #widenColumns(batch: TableBatch, state: TableState, kinds: Map<string, ColumnKind>): Promise<void> {
    const widened = widenings(kinds, (name) => KINDS_OF_TYPES[state.columns.get(name) ?? ''], batch.rows);
    if (widened.length === 0) return;
    // Integers (bigint) widen to double precision; every other widening ends in text (numeric stays numeric): any value has a text form.
    const changes = widened.map(({ column, to }) => {
      const type = to === 'number' ? 'double precision' : 'text';
      return `ALTER COLUMN ${quoteIdentifier(column)} TYPE ${type} USING ${quoteIdentifier(column)}::${type}`;
    });
    await this.#client.query(`ALTER TABLE ${this.#qualified(batch.table)} ${changes.join(', ')}`);
    for (const { column, from, to } of widened) {
      this.#logger.warn({ table: batch.table, column, from: SQL_TYPES[from], to: SQL_TYPES[to] }, 'postgres-table: a column now holds other values; its type was widened');
    }
    state.columns = await this.#readColumns(batch.table);
    for (const id of [...this.#stages.keys()]) if (id.startsWith(`${batch.table}\u0000`)) this.#stages.delete(id);
  }

  async #ensureIndexes(batch: TableBatch, state: TableState): Promise<void> {
    const target = this.#qualified(batch.table);
    const key = batch.key ?? batch.replace?.column;
    if (key !== undefined && !state.columns.has(key)) throw new TableProblem(`table ${batch.table} has no key column "${key}"`);
    if (batch.replace && !state.parentIndexed) {
      // Child rows are found by their parent, on every replace and in every join.
      const index = `${batch.table}__${batch.replace.column}__parent`.slice(0, 63);
      await this.#client.query(`CREATE INDEX IF NOT EXISTS ${quoteIdentifier(index)} ON ${target} (${quoteIdentifier(batch.replace.column)})`);
      state.parentIndexed = true;
    }
    if (batch.key !== undefined && state.uniqueKey !== batch.key && batch.typed && (await this.#hasUniqueIndex(batch.table, batch.key))) state.uniqueKey = batch.key;
    if (batch.key !== undefined && state.uniqueKey !== batch.key) {
      // A unique index, not a primary key, so a table that already existed can take upserts too.
      const index = `${batch.table}__${batch.key}__key`.slice(0, 63);
      await this.#client.query(`CREATE UNIQUE INDEX IF NOT EXISTS ${quoteIdentifier(index)} ON ${target} (${quoteIdentifier(batch.key)})`);
      state.uniqueKey = batch.key;
    }
  }

  /** Whether a unique index (a primary key included) covers exactly this column. */
  async #hasUniqueIndex(table: string, column: string): Promise<boolean> {
    const result = await this.#client.query(
      `SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
        WHERE i.indrelid = $1::regclass AND i.indisunique AND i.indnatts = 1 AND a.attname = $2 LIMIT 1`,
      [this.#qualified(table), column],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * Parent rows: COPY into the staging table and merge by key. When none of
   * the batch's keys is in the table yet (a first export; an incremental run
   * that only sees new records) there is nothing to merge and the rows are
   * COPYed straight into the table. Child rows: the batch's parents' old rows
   * are deleted and the new ones COPYed in.
   */
  async #load(batch: TableBatch, state: TableState, names: readonly string[]): Promise<void> {
    const target = this.#qualified(batch.table);
    const types = names.map((name) => state.columns.get(name) ?? 'text');
    const keyColumn = batch.key ?? batch.replace!.column;
    const keys = batch.replace ? batch.replace.ids : batch.rows.map((row) => row[keyColumn]);
    const anyKey = `${quoteIdentifier(keyColumn)} = ANY($1::${state.columns.get(keyColumn) ?? 'text'}[])`;
    if (batch.replace) {
      await this.#client.query(`DELETE FROM ${target} WHERE ${anyKey}`, [keys]);
      await copyRows(this.#client, target, names, types, batch.rows);
      return;
    }
    if (!(await this.#anyKeyExists(batch.table, state, anyKey, keys))) {
      await copyRows(this.#client, target, names, types, batch.rows);
      for (const key of keys) state.ownKeys?.add(keyText(key));
      if ((state.ownKeys?.size ?? 0) > MAX_OWN_KEYS) delete state.ownKeys;
      return;
    }
    const stage = await this.#stageFor(batch.table, names);
    await copyRows(this.#client, stage, names, types, batch.rows);
    const columns = names.map(quoteIdentifier).join(', ');
    const updates = names.filter((name) => name !== keyColumn).map((name) => `${quoteIdentifier(name)} = EXCLUDED.${quoteIdentifier(name)}`);
    const conflict = `ON CONFLICT (${quoteIdentifier(keyColumn)}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
    await this.#client.query(`INSERT INTO ${target} (${columns}) SELECT ${columns} FROM ${stage} ${conflict}`);
  }

  /**
   * Whether any of the keys is in the table already. A table that was empty
   * when this writer first met it holds only the keys the writer put there,
   * kept in memory (up to MAX_OWN_KEYS), so a first export asks nothing.
   */
  async #anyKeyExists(table: string, state: TableState, anyKey: string, keys: readonly unknown[]): Promise<boolean> {
    const target = this.#qualified(table);
    if (state.ownKeys === undefined && state.emptyChecked !== true) {
      state.emptyChecked = true;
      const rows = await this.#client.query(`SELECT 1 FROM ${target} LIMIT 1`);
      if (rows.rowCount === 0) state.ownKeys = new Set();
    }
    if (state.ownKeys) return keys.some((key) => state.ownKeys!.has(keyText(key)));
    const existing = await this.#client.query(`SELECT 1 FROM ${target} WHERE ${anyKey} LIMIT 1`, [keys]);
    return (existing.rowCount ?? 0) > 0;
  }

  /** A temporary table with the given columns of the target, created once per session; commits empty it. */
  async #stageFor(table: string, names: readonly string[]): Promise<string> {
    const id = `${table}\u0000${names.join('\u0000')}`;
    let stage = this.#stages.get(id);
    if (!stage) {
      stage = quoteIdentifier(`ferry_stage_${++this.#stageCount}`);
      const columns = names.map(quoteIdentifier).join(', ');
      await this.#client.query(`CREATE TEMP TABLE ${stage} ON COMMIT DELETE ROWS AS SELECT ${columns} FROM ${this.#qualified(table)} WITH NO DATA`);
      this.#stages.set(id, stage);
    }
    return stage;
  }
}
