/**
 * The open `postgres-table` destination: one transaction per batch over
 * every table of the batch (one, or several with `shape: relational`),
 * loaded with COPY (tables.ts). Nested values are jsonb, numbers numeric
 * (exact for integers and decimals alike), strings text.
 */
import pg from 'pg';
import { FerryError, messageOf, passwordOf, redact, redactUrl, type ConnectorContext, type DestinationWriter } from '../../../src/sdk/index.js';
import { lastByKey } from '../_export/columns.js';
import { assertKeys, keyOf } from '../_export/key.js';
import { shapeBatch, TableProblem } from '../_export/shape.js';
import type { PostgresTableOptions } from './options.js';
import { PostgresTables } from './tables.js';

export async function openPostgresWriter(ctx: ConnectorContext<PostgresTableOptions>): Promise<DestinationWriter> {
  const { options } = ctx;
  const client = await connect(options.url, ctx.syncName);
  const tables = new PostgresTables(client, options.schema, ctx.logger);
  const failed = (what: string, cause: unknown) =>
    cause instanceof TableProblem ? failure(cause.message, ctx.syncName) : failure(`${what}: ${redact(messageOf(cause), [passwordOf(options.url)])}`, ctx.syncName);

  let closed = false;
  return {
    async write(batch) {
      if (batch.records.length === 0) return;
      const key = keyOf(batch, options.key, 'postgres-table', ctx.syncName);
      assertKeys(batch.records, key, 'postgres-table', ctx.syncName);
      const shaped = shapeBatch(lastByKey(batch.records, key), options.table, key, options.shape, batch.conventions);
      try {
        // Batches commit without waiting for the disk; close() waits once for all of them (see durable()).
        await client.query('BEGIN; SET LOCAL synchronous_commit = off');
        for (const table of shaped) await tables.write(table);
        await client.query('COMMIT');
      } catch (cause) {
        await client.query('ROLLBACK').catch(() => undefined);
        // DDL (new columns, staging tables) rolled back with the batch: read it all afresh next time.
        tables.reset();
        throw failed(`cannot write ${options.table}`, cause);
      }
    },
    async retain(request) {
      try {
        await client.query('BEGIN');
        const soft = request.mode === 'soft' ? { deletedAt: request.deletedAt ?? new Date().toISOString() } : undefined;
        let deleted = 0;
        for (const table of [options.table, ...(request.stream === 'rows' ? await tables.typeTables(options.table) : [])]) deleted += await tables.retain(table, options.key ?? request.key, request.keys, soft);
        await client.query('COMMIT');
        return deleted;
      } catch (cause) {
        await client.query('ROLLBACK').catch(() => undefined);
        tables.reset();
        throw failed(`cannot delete from ${options.table}`, cause);
      }
    },
    async recordLoad(load) {
      try {
        await client.query('BEGIN');
        await tables.recordLoad(load, options.table);
        await client.query('COMMIT');
      } catch (cause) {
        await client.query('ROLLBACK').catch(() => undefined);
        tables.reset();
        throw failed('cannot note the load in _ferry_loads', cause);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await durable(client);
      } catch (cause) {
        throw failure(`cannot commit ${options.table}: ${redact(messageOf(cause), [passwordOf(options.url)])}`, ctx.syncName);
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
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `postgres-table: cannot connect to ${redactUrl(url)}: ${redact(messageOf(cause), [passwordOf(url)])}`, {
      where: `export ${exportName}`,
      hint: 'check the URL, network and credentials (the password is never printed)',
    });
  }
}


function failure(message: string, exportName: string): FerryError {
  // No cause attached: a driver error may carry connection parameters.
  return new FerryError('FERRY_DESTINATION_WRITE_FAILED', `postgres-table: ${message}`, { where: `export ${exportName}` });
}
