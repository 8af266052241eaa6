/**
 * The open `postgres-table` destination: one transaction per batch that adds
 * any new columns and upserts every record with multi-row
 * `INSERT … ON CONFLICT (key) DO UPDATE`, values always bound as parameters.
 * Nested values are jsonb, numbers numeric (exact for integers and
 * decimals alike), strings text.
 */
import pg from 'pg';
import { FerryError, messageOf, passwordOf, redact, redactUrl, type ConnectorContext, type DestinationWriter } from '../../src/sdk/index.js';
import { inferColumns, lastByKey, quoteIdentifier, type ColumnKind } from '../_export/columns.js';
import { assertKeys, keyOf } from '../_export/key.js';
import type { PostgresTableOptions } from './options.js';

const SQL_TYPES: Record<ColumnKind, string> = { boolean: 'boolean', integer: 'numeric', number: 'numeric', text: 'text', json: 'jsonb' };
/** Postgres allows 65535 bound parameters per statement; stay well below. */
const MAX_PARAMETERS = 30_000;

export async function openPostgresWriter(ctx: ConnectorContext<PostgresTableOptions>): Promise<DestinationWriter> {
  const { options } = ctx;
  const client = await connect(options.url, ctx.syncName);
  const table = options.schema ? `${quoteIdentifier(options.schema)}.${quoteIdentifier(options.table)}` : quoteIdentifier(options.table);
  /** Column name → Postgres data type, once the table is known to exist. */
  let columns: Map<string, string> | undefined;
  let keyColumn: string | undefined;

  const readColumns = async (): Promise<Map<string, string>> => {
    const result = await client.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = COALESCE($1, current_schema()) AND table_name = $2 ORDER BY ordinal_position`,
      [options.schema ?? null, options.table],
    );
    return new Map(result.rows.map((row) => [row.column_name, row.data_type]));
  };

  const ensureTable = async (kinds: Map<string, ColumnKind>, key: string) => {
    if (!columns) {
      if (options.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(options.schema)}`);
      columns = await readColumns();
    }
    if (columns.size === 0) {
      const definitions = [...kinds].map(([name, kind]) => `${quoteIdentifier(name)} ${SQL_TYPES[kind]}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (${definitions.join(', ')})`);
      columns = await readColumns();
    }
    const added = [...kinds].filter(([name]) => !columns!.has(name));
    if (added.length > 0) {
      await client.query(`ALTER TABLE ${table} ${added.map(([name, kind]) => `ADD COLUMN IF NOT EXISTS ${quoteIdentifier(name)} ${SQL_TYPES[kind]}`).join(', ')}`);
      columns = await readColumns();
    }
    if (keyColumn !== key) {
      if (!columns.has(key)) throw failure(`table ${options.table} has no key column "${key}"`, ctx.syncName);
      // A unique index, not a primary key, so a table that already existed can take upserts too.
      const index = `${options.table}__${key}__key`.slice(0, 63);
      await client.query(`CREATE UNIQUE INDEX IF NOT EXISTS ${quoteIdentifier(index)} ON ${table} (${quoteIdentifier(key)})`);
      keyColumn = key;
    }
  };

  const upsert = async (records: readonly Readonly<Record<string, unknown>>[], names: readonly string[], key: string) => {
    const types = names.map((name) => columns!.get(name) ?? 'text');
    const updates = names.filter((name) => name !== key).map((name) => `${quoteIdentifier(name)} = EXCLUDED.${quoteIdentifier(name)}`);
    const conflict = `ON CONFLICT (${quoteIdentifier(key)}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
    const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / names.length));
    for (let start = 0; start < records.length; start += perStatement) {
      const chunk = records.slice(start, start + perStatement);
      const values: unknown[] = [];
      const tuples = chunk.map((record) => {
        const placeholders = names.map((name, i) => {
          values.push(encode(record[name], types[i]!));
          return `$${values.length}`;
        });
        return `(${placeholders.join(', ')})`;
      });
      await client.query(`INSERT INTO ${table} (${names.map(quoteIdentifier).join(', ')}) VALUES ${tuples.join(', ')} ${conflict}`, values);
    }
  };

  let closed = false;
  return {
    async write(batch) {
      if (batch.records.length === 0) return;
      const key = keyOf(batch, options.key, 'postgres-table', ctx.syncName);
      assertKeys(batch.records, key, 'postgres-table', ctx.syncName);
      const records = lastByKey(batch.records, key);
      const kinds = inferColumns(records);
      try {
        await client.query('BEGIN');
        await ensureTable(kinds, key);
        await upsert(records, [...kinds.keys()], key);
        await client.query('COMMIT');
      } catch (cause) {
        await client.query('ROLLBACK').catch(() => undefined);
        // DDL rolled back with the batch: read the columns afresh next time.
        columns = undefined;
        keyColumn = undefined;
        if (cause instanceof FerryError) throw cause;
        throw failure(`cannot write ${options.table}: ${redact(messageOf(cause), [passwordOf(options.url)])}`, ctx.syncName);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.end();
    },
    async abort() {
      if (closed) return;
      closed = true;
      await client.end().catch(() => undefined);
    },
  };
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
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `postgres-table: cannot connect to ${redactUrl(url)}: ${redact(messageOf(cause), [passwordOf(url)])}`, {
      where: `export ${exportName}`,
      hint: 'check the URL, network and credentials (the password is never printed)',
    });
  }
}

/** A value for a column of the given Postgres type; JSON columns always get JSON text. */
function encode(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'jsonb' || type === 'json') return JSON.stringify(value);
  if (typeof value === 'object' && !(value instanceof Date)) return JSON.stringify(value);
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (type === 'text' || type === 'character varying') return typeof value === 'string' ? value : String(value);
  return value;
}

function failure(message: string, exportName: string): FerryError {
  // No cause attached: a driver error may carry connection parameters.
  return new FerryError('FERRY_DESTINATION_WRITE_FAILED', `postgres-table: ${message}`, { where: `export ${exportName}` });
}
