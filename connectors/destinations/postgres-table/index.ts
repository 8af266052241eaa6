/**
 * The built-in `postgres-table` destination: upserts records into a Postgres
 * table, creating the table and its columns from the data.
 */
import { defineDestination } from '../../../src/sdk/index.js';
import { postgresTableOptions } from './options.js';
import { connect, openPostgresWriter } from './writer.js';

export default defineDestination({
  name: 'postgres-table',
  options: postgresTableOptions,
  example: { url: 'postgres://ferry@localhost:5432/warehouse', table: 'conversations' },
  // COPY and the merge amortise their round trips and commit over thousands of rows.
  batchSize: 5000,

  async check(ctx) {
    const client = await connect(ctx.options.url, ctx.syncName);
    await client.end();
  },

  open: openPostgresWriter,
});
