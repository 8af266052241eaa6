/** DuckDB as a reader of the test's own: a connection ferry does not hold, its rows as JSON. */
import { DuckDBInstance } from '@duckdb/node-api';

/** Rows of `sql` on a fresh connection to `database` (a file, or ':memory:'), after `setup` (ATTACH, SET …) when given. */
export async function duckRows(database: string, sql: string, setup?: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(database);
  const connection = await instance.connect();
  try {
    if (setup) await connection.run(setup);
    return (await connection.runAndReadAll(sql)).getRowObjectsJson();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
