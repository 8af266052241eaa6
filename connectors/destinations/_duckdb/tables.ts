/**
 * Typed tables in a DuckDB database, loaded from an export's table batches;
 * shared by the `duckdb` destination (the user's database) and `parquet`
 * (a scratch database copied out to files). Columns are typed from the data
 * (BOOLEAN, BIGINT, DOUBLE, TIMESTAMPTZ for ISO instants, VARCHAR, JSON for
 * nested values), and a column that has held only nulls waits for a value to
 * be created with its type; a column whose values change kind (an object type's field
 * that was a number and now holds text) is widened in place and the change
 * logged. Rows go through DuckDB's appender into a temporary staging table,
 * then parent tables are merged by key (`MERGE INTO … WHEN MATCHED UPDATE …
 * WHEN NOT MATCHED INSERT`) and child tables replace their parents' rows.
 * Replacing is a DELETE that scans the whole child table, so it is skipped
 * when it cannot find anything: every parent of the batch was new to the
 * parent table, and every child row has its parent there (checked once a run).
 */
import { DuckDBTypeId, listValue, structValue, type DuckDBAppender, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { inChunks, isRecord, type ConnectorLogger, type DestinationBatch, type ExportLoad, type LiveKeys, type NestedType } from '../../../src/sdk/index.js';
import { columnNamed, fitsNested, inferColumns, quoteIdentifier, widenings, type ColumnKind } from '../_export/columns.js';
import { collectKeys } from '../_export/flatten.js';
import { lastByKey } from '../_export/columns.js';
import { assertKeys, keyOf } from '../_export/key.js';
import { loadsSql } from '../_export/loads.js';
import { CHILD_ID_COLUMN, DELETED_AT_COLUMN, isChildTableOf, isTypeTableOf, TYPE_COLUMN, shapeBatch, TableProblem, type Row, type TableBatch, type TableShape } from '../_export/shape.js';

const DUCK_TYPES: Record<ColumnKind, string> = {
  boolean: 'BOOLEAN',
  integer: 'BIGINT',
  number: 'DOUBLE',
  timestamp: 'TIMESTAMPTZ',
  date: 'DATE',
  text: 'VARCHAR',
  json: 'JSON',
};

/**
 * A column's kind: `nested` for a STRUCT or LIST column (values appended as
 * the column's type says), or `other` for a type ferry did not create (a
 * table the user made): values are appended as text and cast by DuckDB.
 */
type StoredKind = ColumnKind | 'nested' | 'other';

const STAGE = 'ferry_stage';
/** The keys a mirroring export keeps. */
const LIVE = 'ferry_live_keys';
/** Live keys per appender under `deletes: mirror`: never the whole list as one array. */
const LIVE_KEYS_PER_APPEND = 10_000;

/** How a table of a batch is loaded: a parent counts the keys it inserted when child tables follow; a child knows when its parents are all new. */
interface LoadRole {
  countInserted?: boolean;
  /** The parent table, when the batch's parents were all inserted by this batch. */
  newParentsIn?: string;
}

export class DuckTables {
  readonly #connection: DuckDBConnection;
  readonly #logger: ConnectorLogger;
  readonly #destination: string;
  readonly #tables = new Map<string, Map<string, StoredKind>>();
  readonly #written: string[] = [];
  /** Columns (table, NUL, column) known to hold text, which stay VARCHAR. */
  readonly #textual = new Set<string>();
  /** Per child table: whether each of its rows had its parent in the parent table when checked this run; `next` when the next chance checks. */
  readonly #parented = new Map<string, boolean | 'next'>();

  constructor(connection: DuckDBConnection, logger: ConnectorLogger, destination: string) {
    this.#connection = connection;
    this.#logger = logger;
    this.#destination = destination;
  }

  /** Tables written to, in first-written order. */
  get written(): readonly string[] {
    return this.#written;
  }

  /** The columns of a table written to. */
  columnsOf(table: string): string[] {
    return [...(this.#tables.get(table)?.keys() ?? [])];
  }

  /** Load one batch's tables, the parent table first and then its child tables; the caller owns the transaction. */
  async load(shaped: readonly TableBatch[]): Promise<void> {
    // Parents first (one table, or one per object type of rows), then the child tables of a single parent table.
    const parents = shaped.filter((batch) => !batch.replace);
    const children = shaped.filter((batch) => batch.replace);
    const [parent] = parents;
    if (parent === undefined) return;
    if (parents.length > 1) {
      for (const each of parents) await this.#loadTable(each, {});
      for (const child of children) await this.#loadTable(child, {});
      return;
    }
    const inserted = await this.#loadTable(parent, { countInserted: children.length > 0 });
    const newParentsIn = inserted === parent.rows.length ? parent.table : undefined;
    for (const child of children) await this.#loadTable(child, { newParentsIn });
  }

  /** Load one table of a batch; for a parent asked to count, the number of keys it inserted. */
  async #loadTable(batch: TableBatch, role: LoadRole): Promise<number | undefined> {
    const known = this.#tables.get(batch.table) ?? (await this.#readColumns(batch.table));
    // A child table seen only through empty arrays has nothing to replace until it exists.
    if (batch.rows.length === 0 && (!batch.replace || known.size === 0)) return undefined;
    // The analyst layout (typed) creates a column of only nulls all the same, as every destination does: typed by a hint, else VARCHAR.
    const kinds = inferColumns(batch.rows, {
      timestamps: true,
      omitNullColumns: !batch.typed,
      ...(batch.typed ? { dates: true } : {}),
      ...(batch.hints ? { hints: batch.hints } : {}),
    });
    // A column with only nulls so far is created when a value shows its type; an existing one is set to null.
    for (const name of collectKeys(batch.rows)) if (!kinds.has(name) && (known.has(name) || name === batch.key)) kinds.set(name, 'text');
    const columns = await this.#ensureTable(batch, kinds, nestedColumns(batch, kinds));
    const names = kinds.size > 0 ? [...kinds.keys()] : [batch.replace!.column];
    await this.#stage(batch.table, names, names.map((name) => columns.get(name)!), batch.rows);
    const inserted = await this.#merge(batch, names, role);
    await this.#connection.run(`DROP TABLE ${STAGE}`);
    if (!this.#written.includes(batch.table)) this.#written.push(batch.table);
    return inserted;
  }

  /** Delete the rows of `table` whose key is not in `keys`, and its child tables' rows of those parents; the caller owns the transaction. */
  async retain(table: string, named: string, keys: LiveKeys, soft?: { deletedAt: string }): Promise<number> {
    const key = columnNamed(named, (await this.#readColumns(table)).keys());
    if (key === undefined) return 0;
    await this.#connection.run(`CREATE OR REPLACE TEMP TABLE ${LIVE} (k VARCHAR)`);
    for (const chunk of inChunks(keys, LIVE_KEYS_PER_APPEND)) await this.#append(LIVE, chunk.map((k) => ({ k })), ['k'], ['text']);
    if (soft) {
      // deletes: soft keeps the rows (and their child rows), marking those not yet marked.
      const column = quoteIdentifier(DELETED_AT_COLUMN);
      await this.#connection.run(`ALTER TABLE ${quoteIdentifier(table)} ADD COLUMN IF NOT EXISTS ${column} TIMESTAMPTZ`);
      this.#tables.delete(table);
      const marked = await this.#connection.run(
        `UPDATE ${quoteIdentifier(table)} SET ${column} = $1::TIMESTAMPTZ WHERE ${column} IS NULL AND CAST(${quoteIdentifier(key)} AS VARCHAR) NOT IN (SELECT k FROM ${LIVE})`,
        [soft.deletedAt],
      );
      await this.#connection.run(`DROP TABLE ${LIVE}`);
      return marked.rowsChanged;
    }
    const gone = (name: string) => `DELETE FROM ${quoteIdentifier(name)} WHERE CAST(${quoteIdentifier(key)} AS VARCHAR) NOT IN (SELECT k FROM ${LIVE})`;
    const deleted = (await this.#connection.run(gone(table))).rowsChanged;
    const children = await this.#connection.runAndReadAll(
      'SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = $1',
      [key],
    );
    for (const row of children.getRowObjectsJS()) {
      if (isChildTableOf(table, String(row.table_name))) await this.#connection.run(gone(String(row.table_name)));
    }
    await this.#connection.run(`DROP TABLE ${LIVE}`);
    return deleted;
  }

  /** The tables of one object type's rows of `table` (`rows_deal`), which deletions reach as they reach `table`. */
  async typeTables(table: string): Promise<string[]> {
    const reader = await this.#connection.runAndReadAll('SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = $1', [TYPE_COLUMN]);
    return reader.getRowObjectsJS().map((row) => String(row.table_name)).filter((name) => isTypeTableOf(table, name) && !isChildTableOf(table, name));
  }

  /** Note a completed run in `_ferry_loads`; the caller owns the transaction. */
  async recordLoad(load: ExportLoad, table: string): Promise<void> {
    const sql = loadsSql(load, table, { types: DUCK_TYPES, placeholder: (n) => `$${n}` });
    await this.#connection.run(sql.create);
    for (const column of sql.added) await this.#connection.run(column.addIfMissing);
    await this.#connection.run(sql.insert, sql.values);
  }

  async #readColumns(table: string): Promise<Map<string, StoredKind>> {
    const reader = await this.#connection.runAndReadAll(
      'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position',
      [table],
    );
    return new Map(reader.getRowObjectsJS().map((row) => [String(row.column_name), kindOfType(String(row.data_type))]));
  }

  /** The table with a column of the right type for each of the batch's, STRUCT and LIST ones (`nested`) included. */
  async #ensureTable(batch: TableBatch, kinds: Map<string, ColumnKind>, nested: ReadonlyMap<string, NestedType>): Promise<Map<string, StoredKind>> {
    const target = quoteIdentifier(batch.table);
    let columns = this.#tables.get(batch.table) ?? (await this.#readColumns(batch.table));
    const sqlType = (name: string, kind: ColumnKind) => {
      const type = nested.get(name);
      return type === undefined ? DUCK_TYPES[kind] : nestedSql(type);
    };
    const storedKind = (name: string, kind: ColumnKind): StoredKind => (nested.has(name) ? 'nested' : kind);
    if (columns.size === 0) {
      const definitions = [...kinds].map(([name, kind]) => `${quoteIdentifier(name)} ${sqlType(name, kind)}`);
      // The analyst layout's new child tables get a primary key of their own rows: `_ferry_id`. Parent
      // tables get none: their merge by key would maintain an index DuckDB does not use for it.
      if (batch.typed && batch.replace && kinds.has(CHILD_ID_COLUMN)) definitions.push(`PRIMARY KEY (${quoteIdentifier(CHILD_ID_COLUMN)})`);
      await this.#connection.run(`CREATE TABLE IF NOT EXISTS ${target} (${definitions.join(', ')})`);
      columns = await this.#readColumns(batch.table);
    }
    for (const [name, kind] of kinds) {
      if (columns.has(name)) continue;
      await this.#connection.run(`ALTER TABLE ${target} ADD COLUMN ${quoteIdentifier(name)} ${sqlType(name, kind)}`);
      columns.set(name, storedKind(name, kind));
    }
    // A STRUCT or LIST column whose values no longer fit it (a field the service added to participants) becomes JSON, which holds them all.
    for (const name of kinds.keys()) {
      if (columns.get(name) !== 'nested' || nested.has(name) || !batch.rows.some((row) => row[name] !== null && row[name] !== undefined)) continue;
      await this.#connection.run(`ALTER TABLE ${target} ALTER ${quoteIdentifier(name)} TYPE JSON`);
      this.#logger.warn({ table: batch.table, column: name, from: 'STRUCT/LIST', to: 'JSON' }, `${this.#destination}: a column's values no longer have the shape the spec gives; it is JSON now`);
      columns.set(name, 'json');
    }
    if (batch.typed) {
      // A VARCHAR column that has held only nulls (created before a value showed its type) takes the type of its first values.
      for (const [name, kind] of kinds) {
        if (columns.get(name) !== 'text' || kind === 'text' || this.#textual.has(`${batch.table}\u0000${name}`)) continue;
        const held = await this.#connection.runAndReadAll(`SELECT 1 FROM ${target} WHERE ${quoteIdentifier(name)} IS NOT NULL LIMIT 1`);
        if (held.currentRowCount > 0) {
          this.#textual.add(`${batch.table}\u0000${name}`);
          continue;
        }
        await this.#connection.run(`ALTER TABLE ${target} ALTER ${quoteIdentifier(name)} TYPE ${DUCK_TYPES[kind]}`);
        columns.set(name, kind);
      }
    }
    const typed = columns;
    for (const { column, from, to } of widenings(kinds, (name) => ferryKind(typed.get(name)), batch.rows)) {
      await this.#connection.run(`ALTER TABLE ${target} ALTER ${quoteIdentifier(column)} TYPE ${DUCK_TYPES[to]}`);
      this.#logger.warn({ table: batch.table, column, from: DUCK_TYPES[from], to: DUCK_TYPES[to] }, `${this.#destination}: a column now holds other values; its type was widened`);
      columns.set(column, to);
    }
    const key = batch.key ?? batch.replace?.column;
    if (key !== undefined && !columns.has(key)) throw new TableProblem(`table ${batch.table} has no key column "${key}"`);
    this.#tables.set(batch.table, columns);
    return columns;
  }

  /** A fresh staging table with the target's types for the batch's columns, filled through the appender. */
  async #stage(table: string, names: readonly string[], kinds: readonly StoredKind[], rows: readonly Readonly<Row>[]): Promise<void> {
    await this.#connection.run(`CREATE OR REPLACE TEMP TABLE ${STAGE} AS SELECT ${names.map(quoteIdentifier).join(', ')} FROM ${quoteIdentifier(table)} LIMIT 0`);
    await this.#append(STAGE, rows, names, kinds);
  }

  async #append(table: string, rows: readonly Readonly<Row>[], names: readonly string[], kinds: readonly StoredKind[]): Promise<void> {
    const appender = await this.#connection.createAppender(table, 'main', 'temp');
    try {
      // A STRUCT or LIST column's values are built after its own type: the appender knows it.
      const types = kinds.map((kind, i) => (kind === 'nested' ? appender.columnType(i) : undefined));
      for (const row of rows) {
        names.forEach((name, i) => {
          const type = types[i];
          if (type === undefined) appendValue(appender, row[name], kinds[i]!);
          else appender.appendValue(duckValue(row[name], type), type);
        });
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  /** Parents: merged by key (and the keys inserted counted, when asked). Children: the batch's parents' rows replaced. */
  async #merge(batch: TableBatch, names: readonly string[], role: LoadRole): Promise<number | undefined> {
    const target = quoteIdentifier(batch.table);
    if (batch.replace) {
      await this.#deleteChildren(batch.table, batch.replace, role.newParentsIn);
      await this.#connection.run(`INSERT INTO ${target} BY NAME SELECT * FROM ${STAGE}`);
      return undefined;
    }
    const key = quoteIdentifier(batch.key!);
    const updates = names.filter((name) => name !== batch.key).map((name) => `${quoteIdentifier(name)} = s.${quoteIdentifier(name)}`);
    const matched = updates.length > 0 ? `WHEN MATCHED THEN UPDATE SET ${updates.join(', ')} ` : '';
    // The growth of the table is what the MERGE inserted; RETURNING merge_action would say it too, but doubles the MERGE's time.
    const before = role.countInserted ? await this.#count(batch.table) : 0;
    await this.#connection.run(`MERGE INTO ${target} AS t USING ${STAGE} AS s ON t.${key} = s.${key} ${matched}WHEN NOT MATCHED THEN INSERT BY NAME`);
    return role.countInserted ? (await this.#count(batch.table)) - before : undefined;
  }

  /**
   * Delete a child table's rows of the batch's parents. When the parents were
   * all new (`newParentsIn`) and every child row has its parent, there is
   * nothing to delete, and the scan of the whole child table is skipped. That
   * every child row has a parent holds once checked, as ferry writes children
   * only with their parents and `retain` deletes both; it is checked once a
   * run, after a batch's DELETE: a child row left without a parent by the
   * user (a parent table dropped or emptied) either belonged to the batch, so
   * the DELETE found it, or is still there. A failed batch rolls back to a
   * state the check holds for as well.
   */
  async #deleteChildren(table: string, replace: NonNullable<TableBatch['replace']>, newParentsIn: string | undefined): Promise<void> {
    const parented = this.#parented.get(table);
    if (replace.ids.length === 0 || (newParentsIn !== undefined && parented === true)) return;
    const column = quoteIdentifier(replace.column);
    const ids = replace.ids.map(sqlLiteral).join(', ');
    const deleted = (await this.#connection.run(`DELETE FROM ${quoteIdentifier(table)} WHERE ${column} IN (${ids})`)).rowsChanged;
    if (newParentsIn === undefined || typeof parented === 'boolean') return;
    // The check reads both tables whole (a few DELETEs' worth): a run with one batch of new parents, a scheduled increment, is spared it.
    if (parented === undefined) {
      this.#parented.set(table, 'next');
      return;
    }
    // Keys compared as text, as `retain` does: a parent's key column may have been widened where the child's was not.
    const orphan = await this.#connection.runAndReadAll(
      `SELECT 1 FROM ${quoteIdentifier(table)} AS c WHERE NOT EXISTS ` +
        `(SELECT 1 FROM ${quoteIdentifier(newParentsIn)} AS p WHERE CAST(p.${column} AS VARCHAR) = CAST(c.${column} AS VARCHAR)) LIMIT 1`,
    );
    this.#parented.set(table, deleted === 0 && orphan.currentRowCount === 0);
  }

  async #count(table: string): Promise<number> {
    const reader = await this.#connection.runAndReadAll(`SELECT count(*) AS n FROM ${quoteIdentifier(table)}`);
    return Number(reader.getRowObjectsJS()[0]!.n);
  }
}

/** Run `work` in one transaction: committed when it succeeds, rolled back (and rethrown) when it fails. */
export async function inTransaction<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

function ferryKind(kind: StoredKind | undefined): ColumnKind | undefined {
  return kind === 'other' || kind === 'nested' ? undefined : kind;
}

function kindOfType(type: string): StoredKind {
  if (type.startsWith('STRUCT(') || type.endsWith('[]')) return 'nested';
  const entry = Object.entries(DUCK_TYPES).find(([, name]) => name === type || (name === 'TIMESTAMPTZ' && type === 'TIMESTAMP WITH TIME ZONE'));
  return entry ? (entry[0] as ColumnKind) : 'other';
}

/** Append a value to a column of the given kind; the column was typed (or widened) for it. */
function appendValue(appender: DuckDBAppender, value: unknown, kind: StoredKind): void {
  if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value))) {
    appender.appendNull();
    return;
  }
  switch (kind) {
    case 'boolean':
      appender.appendBoolean(Boolean(value));
      return;
    case 'integer':
      appender.appendBigInt(BigInt(value as number | bigint));
      return;
    case 'number':
      appender.appendDouble(Number(value));
      return;
    case 'json':
      appender.appendVarchar(JSON.stringify(value));
      return;
    default:
      appender.appendVarchar(textOf(value));
  }
}

/**
 * The columns of a batch that are STRUCT or LIST: those the spec gives a
 * nested type whose every value in the batch fits it (an existing column
 * keeps its own type; one whose values stop fitting becomes JSON).
 */
function nestedColumns(batch: TableBatch, kinds: ReadonlyMap<string, ColumnKind>): Map<string, NestedType> {
  const out = new Map<string, NestedType>();
  if (!batch.nested) return out;
  for (const name of kinds.keys()) {
    const type = batch.nested[name];
    if (type !== undefined && batch.rows.every((row) => fitsNested(row[name], type))) out.set(name, type);
  }
  return out;
}

/** DuckDB's type for a nested type: `STRUCT("name" VARCHAR, …)`, `…[]`. */
function nestedSql(type: NestedType): string {
  if (typeof type === 'string') return DUCK_TYPES[type];
  if ('list' in type) return `${nestedSql(type.list)}[]`;
  return `STRUCT(${Object.entries(type.struct).map(([name, inner]) => `${quoteIdentifier(name)} ${nestedSql(inner)}`).join(', ')})`;
}

/** A value (that fits the column: fitsNested) as a DuckDB value of the column's type. */
function duckValue(value: unknown, type: DuckDBType): DuckDBValue {
  if (value === null || value === undefined) return null;
  switch (type.typeId) {
    case DuckDBTypeId.STRUCT: {
      const record = isRecord(value) ? value : {};
      const entries: Record<string, DuckDBValue> = {};
      type.entryNames.forEach((name, i) => (entries[name] = duckValue(record[name], type.entryTypes[i]!)));
      return structValue(entries);
    }
    case DuckDBTypeId.LIST:
      return listValue((Array.isArray(value) ? value : [value]).map((element) => duckValue(element, type.valueType)));
    case DuckDBTypeId.BIGINT:
      return BigInt(value as number | bigint);
    case DuckDBTypeId.DOUBLE:
      return Number(value);
    case DuckDBTypeId.BOOLEAN:
      return Boolean(value);
    default:
      return textOf(value);
  }
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function sqlLiteral(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return `'${String(value).replaceAll("'", "''")}'`;
}

/**
 * A batch of a DuckDB-backed destination (duckdb, parquet) as tables to load:
 * its keys checked, the last record of each key kept, shaped per `shape`.
 */
export function tablesOfBatch(
  batch: DestinationBatch,
  options: { table: string; key?: string | undefined; shape: TableShape },
  where: { destination: string; exportName: string },
): TableBatch[] {
  const key = keyOf(batch, options.key, where.destination, where.exportName);
  assertKeys(batch.records, key, where.destination, where.exportName);
  return shapeBatch(lastByKey(batch.records, key), options.table, key, options.shape, batch.conventions, batch.nestedTypes);
}

/** Load shaped tables in one transaction: all of the batch or none of it. */
export async function loadTables(connection: DuckDBConnection, tables: DuckTables, shaped: readonly TableBatch[]): Promise<void> {
  await inTransaction(connection, () => tables.load(shaped));
}
