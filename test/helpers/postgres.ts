/**
 * The local PostgreSQL the scale-out tests run against (FERRY_TEST_PG_URL,
 * default postgres://postgres@127.0.0.1:5432/test). Each test gets a fresh
 * schema with a random name and drops it afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_URL = process.env.FERRY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether the local PostgreSQL answers (tests that only add a PostgreSQL case skip it when not). */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A schema name no other test uses. */
export function freshSchema(prefix = 'ferry_t'): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** Drops the schemas (and everything in them). */
export async function dropSchemas(...schemas: string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Runs one query on its own connection. */
export async function pgQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}
