/**
 * The open `postgres-table` destination: one transaction per batch. Each
 * table of the batch (one, or several with `shape: relational`) gets any new
 * columns, then its rows are loaded with COPY (see load()): parent rows
 * through a session-local staging table merged with `INSERT … SELECT … ON
 * CONFLICT (key) DO UPDATE`, child rows replacing the batch's parents' old
 * rows. Nested values are jsonb, numbers numeric (exact
 * for integers and decimals alike), strings text.
 */
import pg from 'pg';
import { FerryError, type ConnectorContext, type DestinationWriter } from '../../src/sdk/index.js';
import { inferColumns, keyText, lastByKey, quoteIdentifier, widenings, type ColumnKind } from '../_export/columns.js';
import { assertKeys, keyOf } from '../_export/key.js';
import { isChildTableOf, shapeBatch, type TableBatch } from '../_export/shape.js';
import { copyRows } from './copy.js';
import type { PostgresTableOptions } from './options.js';
import { redactMessage, redactUrl } from './redact.js';

const SQL_TYPES: Record<ColumnKind, string> = { boolean: 'boolean', integer: 'numeric', number: 'numeric', timestamp: 'timestamptz', text: 'text', json: 'jsonb' };
/** information_schema data types ferry creates, as kinds; other types are the user's and never widened. */
const KINDS_OF_TYPES: Readonly<Record<string, ColumnKind>> = { boolean: 'boolean', numeric: 'number', 'timestamp with time zone': 'timestamp', text: 'text', jsonb: 'json' };

/** What the writer knows of one target table: its columns (name → data type) and the key it has a unique index on. */
interface TableState {
  columns: Map<string, string>;
  uniqueKey?: string;
  parentIndexed?: boolean;
  /** Whether the writer looked if the table was empty when it first loaded it. */
  emptyChecked?: boolean;
  /** The keys this writer loaded into a table that was empty: the table's only keys. */
  ownKeys?: Set<string>;
}

/** The temporary table of the keys a mirroring export keeps. */
const LIVE = 'ferry_live_keys';

/** Keys remembered per table before asking Postgres instead (about 50 MB of short ids). */
const MAX_OWN_KEYS = 1_000_000;

export async function openPostgresWriter(ctx: ConnectorContext<PostgresTableOptions>): Promise<DestinationWriter> {
  const { options } = ctx;
  const client = await connect(options.url, ctx.syncName);
  const qualified = (name: string) => (options.schema ? `${quoteIdentifier(options.schema)}.${quoteIdentifier(name)}` : quoteIdentifier(name));
  const tables = new Map<string, TableState>();
  /** Staging tables of this session, by target table and column list; emptied by every commit. */
  const stages = new Map<string, string>();
  let stageCount = 0;
  let schemaReady = false;

  const readColumns = async (table: string): Promise<Map<string, string>> => {
    const result = await client.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = COALESCE($1, current_schema()) AND table_name = $2 ORDER BY ordinal_position`,
      [options.schema ?? null, table],
    );
    return new Map(result.rows.map((row) => [row.column_name, row.data_type]));
  };

  const ensureTable = async (batch: TableBatch, kinds: Map<string, ColumnKind>): Promise<TableState> => {
    if (!schemaReady && options.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(options.schema)}`);
    schemaReady = true;
    const target = qualified(batch.table);
    let state = tables.get(batch.table);
    if (!state) {
      state = { columns: await readColumns(batch.table) };
      tables.set(batch.table, state);
    }
    if (state.columns.size === 0) {
      const definitions = [...kinds].map(([name, kind]) => `${quoteIdentifier(name)} ${SQL_TYPES[kind]}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${target} (${definitions.join(', ')})`);
      state.columns = await readColumns(batch.table);
    }
    const added = [...kinds].filter(([name]) => !state.columns.has(name));
    if (added.length > 0) {
      await client.query(`ALTER TABLE ${target} ${added.map(([name, kind]) => `ADD COLUMN IF NOT EXISTS ${quoteIdentifier(name)} ${SQL_TYPES[kind]}`).join(', ')}`);
      state.columns = await readColumns(batch.table);
    }
    const widened = widenings(kinds, (name) => KINDS_OF_TYPES[state.columns.get(name) ?? ''], batch.rows);
    if (widened.length > 0) {
      // Every widening ends in text (numbers stay numeric): any value has a text form.
      await client.query(`ALTER TABLE ${target} ${widened.map(({ column }) => `ALTER COLUMN ${quoteIdentifier(column)} TYPE text USING ${quoteIdentifier(column)}::text`).join(', ')}`);
      for (const { column, from, to } of widened) {
        ctx.logger.warn({ table: batch.table, column, from: SQL_TYPES[from], to: SQL_TYPES[to] }, 'postgres-table: a column now holds other values; its type was widened');
      }
      state.columns = await readColumns(batch.table);
      for (const id of [...stages.keys()]) if (id.startsWith(`${batch.table}\u0000`)) stages.delete(id);
    }
    const key = batch.key ?? batch.replace?.column;
    if (key !== undefined && !state.columns.has(key)) throw failure(`table ${batch.table} has no key column "${key}"`, ctx.syncName);
    if (batch.replace && !state.parentIndexed) {
      // Child rows are found by their parent, on every replace and in every join.
      const index = `${batch.table}__${batch.replace.column}__parent`.slice(0, 63);
      await client.query(`CREATE INDEX IF NOT EXISTS ${quoteIdentifier(index)} ON ${target} (${quoteIdentifier(batch.replace.column)})`);
      state.parentIndexed = true;
    }
    if (batch.key !== undefined && state.uniqueKey !== batch.key) {
      // A unique index, not a primary key, so a table that already existed can take upserts too.
      const index = `${batch.table}__${batch.key}__key`.slice(0, 63);
      await client.query(`CREATE UNIQUE INDEX IF NOT EXISTS ${quoteIdentifier(index)} ON ${target} (${quoteIdentifier(batch.key)})`);
      state.uniqueKey = batch.key;
    }
    return state;
  };

  /** A temporary table with the given columns of the target, created once per session; commits empty it. */
  const stageFor = async (table: string, names: readonly string[]): Promise<string> => {
    const id = `${table}\u0000${names.join('\u0000')}`;
    let stage = stages.get(id);
    if (!stage) {
      stage = quoteIdentifier(`ferry_stage_${++stageCount}`);
      const columns = names.map(quoteIdentifier).join(', ');
      await client.query(`CREATE TEMP TABLE ${stage} ON COMMIT DELETE ROWS AS SELECT ${columns} FROM ${qualified(table)} WITH NO DATA`);
      stages.set(id, stage);
    }
    return stage;
  };

  /**
   * Parent rows: COPY into the staging table and merge by key. When none of
   * the batch's keys is in the table yet (a first export; an incremental run
   * that only sees new records) there is nothing to merge and the rows are
   * COPYed straight into the table. Child rows: the batch's parents' old rows
   * are deleted and the new ones COPYed in.
   */
  const load = async (batch: TableBatch, state: TableState, names: readonly string[]) => {
    const target = qualified(batch.table);
    const types = names.map((name) => state.columns.get(name) ?? 'text');
    const keyColumn = batch.key ?? batch.replace!.column;
    const keys = batch.replace ? batch.replace.ids : batch.rows.map((row) => row[keyColumn]);
    const anyKey = `${quoteIdentifier(keyColumn)} = ANY($1::${state.columns.get(keyColumn) ?? 'text'}[])`;
    if (batch.replace) {
      await client.query(`DELETE FROM ${target} WHERE ${anyKey}`, [keys]);
      await copyRows(client, target, names, types, batch.rows);
      return;
    }
    if (!(await anyKeyExists(batch.table, state, anyKey, keys))) {
      await copyRows(client, target, names, types, batch.rows);
      for (const key of keys) state.ownKeys?.add(keyText(key));
      if ((state.ownKeys?.size ?? 0) > MAX_OWN_KEYS) delete state.ownKeys;
      return;
    }
    const stage = await stageFor(batch.table, names);
    await copyRows(client, stage, names, types, batch.rows);
    const columns = names.map(quoteIdentifier).join(', ');
    const updates = names.filter((name) => name !== keyColumn).map((name) => `${quoteIdentifier(name)} = EXCLUDED.${quoteIdentifier(name)}`);
    const conflict = `ON CONFLICT (${quoteIdentifier(keyColumn)}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
    await client.query(`INSERT INTO ${target} (${columns}) SELECT ${columns} FROM ${stage} ${conflict}`);
  };

  /**
   * Whether any of the keys is in the table already. A table that was empty
   * when this writer first met it holds only the keys the writer put there,
   * kept in memory (up to MAX_OWN_KEYS), so a first export asks nothing.
   */
  const anyKeyExists = async (table: string, state: TableState, anyKey: string, keys: readonly unknown[]): Promise<boolean> => {
    const target = qualified(table);
    if (state.ownKeys === undefined && state.emptyChecked !== true) {
      state.emptyChecked = true;
      const rows = await client.query(`SELECT 1 FROM ${target} LIMIT 1`);
      if (rows.rowCount === 0) state.ownKeys = new Set();
    }
    if (state.ownKeys) return keys.some((key) => state.ownKeys!.has(keyText(key)));
    const existing = await client.query(`SELECT 1 FROM ${target} WHERE ${anyKey} LIMIT 1`, [keys]);
    return (existing.rowCount ?? 0) > 0;
  };

  const writeTable = async (batch: TableBatch) => {
    // A child table seen only through empty arrays has nothing to replace until it exists.
    if (batch.rows.length === 0 && (!batch.replace || !(await tableExists(batch.table)))) return;
    const kinds = inferColumns(batch.rows);
    if (batch.replace && !kinds.has(batch.replace.column)) kinds.set(batch.replace.column, 'text');
    const state = await ensureTable(batch, kinds);
    await load(batch, state, [...kinds.keys()]);
  };

  const tableExists = async (table: string) => (tables.get(table)?.columns.size ?? (await readColumns(table)).size) > 0;

  /** Delete the parent rows whose key is not in `keys`, and their child tables' rows. */
  const retainKeys = async (key: string, keys: ReadonlySet<string>): Promise<number> => {
    if (!(await readColumns(options.table)).has(key)) return 0;
    await client.query(`CREATE TEMP TABLE IF NOT EXISTS ${LIVE} (k text) ON COMMIT DROP`);
    await copyRows(client, LIVE, ['k'], ['text'], [...keys].map((k) => ({ k })));
    const gone = (table: string) =>
      `DELETE FROM ${qualified(table)} AS x WHERE NOT EXISTS (SELECT 1 FROM ${LIVE} AS l WHERE l.k = x.${quoteIdentifier(key)}::text)`;
    const deleted = (await client.query(gone(options.table))).rowCount ?? 0;
    const children = await client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.columns WHERE table_schema = COALESCE($1, current_schema()) AND column_name = $2',
      [options.schema ?? null, key],
    );
    for (const { table_name: child } of children.rows) if (isChildTableOf(options.table, child)) await client.query(gone(child));
    return deleted;
  };

  let closed = false;
  return {
    async write(batch) {
      if (batch.records.length === 0) return;
      const key = keyOf(batch, options.key, 'postgres-table', ctx.syncName);
      assertKeys(batch.records, key, 'postgres-table', ctx.syncName);
      const shaped = shapeBatch(lastByKey(batch.records, key), options.table, key, options.shape);
      try {
        // Batches commit without waiting for the disk; close() waits once for all of them (see durable()).
        await client.query('BEGIN; SET LOCAL synchronous_commit = off');
        for (const table of shaped) await writeTable(table);
        await client.query('COMMIT');
      } catch (cause) {
        await client.query('ROLLBACK').catch(() => undefined);
        // DDL (new columns, staging tables) rolled back with the batch: read it all afresh next time.
        tables.clear();
        stages.clear();
        schemaReady = false;
        if (cause instanceof FerryError) throw cause;
        throw failure(`cannot write ${options.table}: ${redactMessage(messageOf(cause), options.url)}`, ctx.syncName);
      }
    },
    async retain(request) {
      const key = options.key ?? request.key;
      try {
        await client.query('BEGIN');
        const deleted = await retainKeys(key, request.keys);
        await client.query('COMMIT');
        return deleted;
      } catch (cause) {
        await client.query('ROLLBACK').catch(() => undefined);
        tables.clear();
        throw failure(`cannot delete from ${options.table}: ${redactMessage(messageOf(cause), options.url)}`, ctx.syncName);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await durable(client);
      } catch (cause) {
        throw failure(`cannot commit ${options.table}: ${redactMessage(messageOf(cause), options.url)}`, ctx.syncName);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    async abort() {
      if (closed) return;
      closed = true;
      await client.end().catch(() => undefined);
    },
  };
}

/**
 * Wait until every batch committed so far is on disk. Batches commit
 * asynchronously (no fsync each); a synchronous commit that writes a WAL
 * record (txid_current() assigns an id) flushes the log up to itself, and
 * with it every earlier commit. The export's watermark moves only after this.
 */
async function durable(client: pg.Client): Promise<void> {
  await client.query('BEGIN; SET LOCAL synchronous_commit = on; SELECT txid_current(); COMMIT');
}

/** A connected client, or a destination error that names the server without the password. */
export async function connect(url: string, exportName: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: 'ferry export', connectionTimeoutMillis: 10_000 });
  // An idle connection dropped by the server must not crash the process; the next query reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (cause) {
    await client.end().catch(() => undefined);
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `postgres-table: cannot connect to ${redactUrl(url)}: ${redactMessage(messageOf(cause), url)}`, {
      where: `export ${exportName}`,
      hint: 'check the URL, network and credentials (the password is never printed)',
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function failure(message: string, exportName: string): FerryError {
  // No cause attached: a driver error may carry connection parameters.
  return new FerryError('FERRY_DESTINATION_WRITE_FAILED', `postgres-table: ${message}`, { where: `export ${exportName}` });
}
