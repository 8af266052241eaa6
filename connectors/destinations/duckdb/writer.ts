/**
 * The open `duckdb` destination: one transaction per batch over every table
 * of the batch (one, or several with `shape: relational`), durable when it
 * commits (DuckDB syncs its write-ahead log); see
 * connectors/_duckdb/tables.ts for typing, widening and the merge.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { FerryError, messageOf, type ConnectorContext, type DestinationWriter } from '../../../src/sdk/index.js';
import { DuckTables, inTransaction, loadTables, tablesOfBatch } from '../_duckdb/tables.js';
import { outputPath, prepareFolder } from '../_export/paths.js';
import type { DuckdbOptions } from './options.js';

export async function openDuckdbWriter(ctx: ConnectorContext<DuckdbOptions>): Promise<DestinationWriter> {
  const { options } = ctx;
  const file = outputPath(options.path, ctx.baseDir);
  await prepareFolder(file, 'duckdb', ctx.syncName);
  const { instance, connection } = await openDatabase(file, ctx.syncName);
  const tables = new DuckTables(connection, ctx.logger, 'duckdb');

  const failure = (message: string, cause: unknown) =>
    new FerryError('FERRY_DESTINATION_WRITE_FAILED', `duckdb: ${message}`, { where: `export ${ctx.syncName}`, cause });
  let closed = false;
  const release = () => {
    if (closed) return;
    closed = true;
    connection.closeSync();
    instance.closeSync();
  };
  return {
    async write(batch) {
      if (batch.records.length === 0) return;
      const shaped = tablesOfBatch(batch, options, { destination: 'duckdb', exportName: ctx.syncName });
      try {
        await loadTables(connection, tables, shaped);
      } catch (cause) {
        throw failure(`cannot write ${options.table} in ${file}: ${messageOf(cause)}`, cause);
      }
    },
    async retain(request) {
      try {
        const soft = request.mode === 'soft' ? { deletedAt: request.deletedAt ?? new Date().toISOString() } : undefined;
        return await inTransaction(connection, async () => {
          let deleted = 0;
          for (const table of [options.table, ...(request.stream === 'rows' ? await tables.typeTables(options.table) : [])]) deleted += await tables.retain(table, options.key ?? request.key, request.keys, soft);
          return deleted;
        });
      } catch (cause) {
        throw failure(`cannot delete from ${options.table} in ${file}: ${messageOf(cause)}`, cause);
      }
    },
    async recordLoad(load) {
      try {
        await inTransaction(connection, () => tables.recordLoad(load, options.table));
      } catch (cause) {
        throw failure(`cannot note the load in _ferry_loads of ${file}: ${messageOf(cause)}`, cause);
      }
    },
    async close() {
      release();
    },
    async abort() {
      release();
    },
  };
}

async function openDatabase(file: string, exportName: string): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  try {
    const instance = await DuckDBInstance.create(file);
    return { instance, connection: await instance.connect() };
  } catch (cause) {
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `duckdb: cannot open ${file}: ${messageOf(cause)}`, {
      where: `export ${exportName}`,
      hint: 'DuckDB lets one process write a database at a time: close other programs that have it open (a DuckDB shell, a notebook)',
      cause,
    });
  }
}
