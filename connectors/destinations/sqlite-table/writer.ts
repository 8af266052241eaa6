/**
 * The open `sqlite-table` destination: one transaction per batch over every
 * table of the batch (one, or several with `shape: relational`); see
 * tables.ts for what each table gets.
 */
import Database from 'better-sqlite3';
import { FerryError, messageOf, type ConnectorContext, type DestinationWriter } from '../../../src/sdk/index.js';
import { lastByKey } from '../_export/columns.js';
import { assertKeys, keyOf } from '../_export/key.js';
import { outputPath, prepareFolder } from '../_export/paths.js';
import { shapeBatch, TableProblem } from '../_export/shape.js';
import type { SqliteTableOptions } from './options.js';
import { SqliteTables } from './tables.js';

export async function openSqliteWriter(ctx: ConnectorContext<SqliteTableOptions>): Promise<DestinationWriter> {
  const { options } = ctx;
  const file = outputPath(options.path, ctx.baseDir);
  await prepareFolder(file, 'sqlite-table', ctx.syncName);
  let db: Database.Database;
  try {
    db = new Database(file);
    db.pragma('busy_timeout = 5000');
  } catch (cause) {
    throw new FerryError('FERRY_DESTINATION_UNREACHABLE', `sqlite-table: cannot open ${file}: ${messageOf(cause)}`, { where: `export ${ctx.syncName}`, cause });
  }
  const tables = new SqliteTables(db);
  const failed = (what: string, cause: unknown) =>
    cause instanceof TableProblem ? failure(cause.message, ctx.syncName) : failure(`${what} in ${file}: ${messageOf(cause)}`, ctx.syncName, cause);

  let closed = false;
  const release = () => {
    if (closed) return;
    closed = true;
    db.close();
  };
  return {
    async write(batch) {
      if (batch.records.length === 0) return;
      const key = keyOf(batch, options.key, 'sqlite-table', ctx.syncName);
      assertKeys(batch.records, key, 'sqlite-table', ctx.syncName);
      const shaped = shapeBatch(lastByKey(batch.records, key), options.table, key, options.shape, batch.conventions);
      try {
        db.transaction(() => {
          for (const table of shaped) tables.write(table);
        })();
      } catch (cause) {
        // DDL rolled back with the batch: read the tables afresh next time.
        tables.reset();
        throw failed(`cannot write ${options.table}`, cause);
      }
    },
    async retain(request) {
      try {
        const soft = request.mode === 'soft' ? { deletedAt: request.deletedAt ?? new Date().toISOString() } : undefined;
        const key = options.key ?? request.key;
        return db.transaction(() => [options.table, ...(request.stream === 'rows' ? tables.typeTables(options.table) : [])].reduce((sum, table) => sum + tables.retain(table, key, request.keys, soft), 0))();
      } catch (cause) {
        throw failed(`cannot delete from ${options.table}`, cause);
      }
    },
    async recordLoad(load) {
      try {
        db.transaction(() => tables.recordLoad(load, options.table))();
      } catch (cause) {
        throw failed('cannot note the load in _ferry_loads', cause);
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

function failure(message: string, exportName: string, cause?: unknown): FerryError {
  return new FerryError('FERRY_DESTINATION_WRITE_FAILED', `sqlite-table: ${message}`, { where: `export ${exportName}`, ...(cause === undefined ? {} : { cause }) });
}
