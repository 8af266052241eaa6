/**
 * Opens the PostgreSQL state database: a connection pool, the schema, and
 * migrations on first use. Two processes opening a fresh database at once
 * are serialised by a transaction-scoped advisory lock, so the schema is
 * created exactly once. Every failure becomes a FERRY_STATE_ERROR that names
 * the database with its password masked.
 */
import pg from 'pg';
import { FerryError } from '../../sdk/errors.js';
import { codeOf, messageOf } from '../../sdk/guards.js';
import { redact } from '../../sdk/redact.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from './migrations.js';

export type Pool = pg.Pool;
export type Queryable = Pick<pg.PoolClient, 'query'>;

export interface PgLocation {
  pool: Pool;
  /** Quoted schema name, ready to prefix table names. */
  schema: string;
  /** The URL with its password masked, for messages. */
  where: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Validates a `state.schema` name; only plain identifiers are accepted so none needs escaping rules explained. */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new FerryError('FERRY_STATE_ERROR', `state schema "${schema}" is not a plain identifier`, {
      hint: 'use letters, digits and underscores (not starting with a digit), at most 63 characters',
    });
  }
  return schema;
}

export function createPool(url: string, max: number): Pool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: 'ferry-state' });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Creates the schema and applies missing migrations, once, under an advisory
 * lock. A schema already at this version is recognised by one read, without
 * the lock's transaction: that took seven round trips at every run's start,
 * a tenth of an unchanged re-run of 5,000 records.
 */
export async function migrate(location: PgLocation, schemaName: string): Promise<void> {
  if ((await storedVersion(location)) === PG_SCHEMA_VERSION) return;
  await inTransaction(location.pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ferry-state-migrate:${schemaName}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${location.schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${location.schema}.meta (key text PRIMARY KEY, value text NOT NULL)`);
    const current = (await readVersion(client, location.schema)) ?? 0;
    if (current > PG_SCHEMA_VERSION) {
      throw new FerryError(
        'FERRY_STATE_ERROR',
        `state schema ${schemaName} in ${location.where} has version ${current}, newer than this ferry understands (${PG_SCHEMA_VERSION})`,
        { where: location.where, hint: 'upgrade ferry, or point state.schema at another schema' },
      );
    }
    for (let v = current; v < PG_SCHEMA_VERSION; v++) await client.query((PG_MIGRATIONS[v] ?? '').replaceAll('{s}', location.schema));
    await client.query(
      `INSERT INTO ${location.schema}.meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [String(PG_SCHEMA_VERSION)],
    );
  });
}

/** The schema's version, or undefined when it has none yet (no schema, no meta table, no row: the first run's case). */
async function storedVersion(location: PgLocation): Promise<number | undefined> {
  try {
    return await readVersion(location.pool, location.schema);
  } catch (error) {
    // 42P01: no such table; 3F000: no such schema. Anything else (the database unreachable, say) is the caller's to see.
    const code = codeOf(error);
    if (code === '42P01' || code === '3F000') return undefined;
    throw error;
  }
}

/** The version row of `schema` (quoted), undefined when there is none; fails when the table is missing. */
async function readVersion(db: Queryable, schema: string): Promise<number | undefined> {
  const row = await db.query<{ value: string }>(`SELECT value FROM ${schema}.meta WHERE key = 'schema_version'`);
  return row.rows[0] === undefined ? undefined : Number(row.rows[0].value);
}

/** Runs `fn` in one transaction on one pooled connection. */
export async function inTransaction<T>(pool: Pool, fn: (client: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A database error as a FERRY_STATE_ERROR naming the action and the (masked) database. */
export function pgStateError(action: string, where: string, cause: unknown): FerryError {
  if (cause instanceof FerryError) return cause;
  const message = redact(messageOf(cause));
  const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', '57P01', '3D000', '28P01'].includes(codeOf(cause) ?? '');
  return new FerryError('FERRY_STATE_ERROR', `cannot ${action} (state database ${where}): ${message}`, {
    where,
    cause,
    hint: unreachable
      ? 'check that PostgreSQL is running and that state.url names the right host, database and credentials'
      : 'check the database (disk, permissions, connection limits) and retry',
  });
}
