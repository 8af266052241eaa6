/**
 * The open `parquet` destination. Batches are loaded into a scratch DuckDB
 * database next to the output (typed like the `duckdb` destination, records
 * de-duplicated by key within the run); when the export completes each table
 * is copied out to Parquet in a hidden staging folder and moved into place:
 * - overwrite: the dataset folder is swapped for the new one;
 * - append: the run's files, named after the run, are added beside the
 *   earlier runs' files, which are never rewritten.
 * A failed or stopped export moves nothing and removes the scratch folder.
 */
import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { FerryError, messageOf, type ConnectorContext, type DestinationWriter, type RetainRequest } from '../../../src/sdk/index.js';
import { DuckTables, loadTables, tablesOfBatch } from '../_duckdb/tables.js';
import { columnNamed } from '../_export/columns.js';
import { isChildTableOf, isTypeTableOf } from '../_export/shape.js';
import { outputPath, prepareFolder } from '../_export/paths.js';
import { publishDataset, removeAbandonedScratch, writeDataset } from './dataset.js';
import type { ParquetOptions } from './options.js';
import { stageTombstones } from './tombstones.js';

export async function openParquetWriter(ctx: ConnectorContext<ParquetOptions>): Promise<DestinationWriter> {
  const { options } = ctx;
  const root = outputPath(options.path, ctx.baseDir);
  const runId = `${new Date().toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
  const scratch = join(root, `.ferry-${runId}`);
  await prepareFolder(join(scratch, 'scratch.duckdb'), 'parquet', ctx.syncName);
  await removeAbandonedScratch(root, ctx.logger);
  const instance = await DuckDBInstance.create(join(scratch, 'scratch.duckdb'));
  const connection = await instance.connect();
  // Partition folders are cut in UTC, whatever the machine's zone.
  await connection.run("SET TimeZone = 'UTC'");
  const tables = new DuckTables(connection, ctx.logger, 'parquet');
  const where = `export ${ctx.syncName}`;

  /**
   * A scratch table written to Parquet in the dataset's staging folder
   * (`source`: the dataset's own table, or its tombstones); the partition
   * field must be a column.
   */
  const copyOut = async (table: string, source: { name: string; columns: readonly string[]; tag: string }): Promise<string> => {
    const staged = join(scratch, 'out', table);
    const named = table === options.table ? options.partition : undefined;
    // A field named as the service names it (`startTime`) finds its snake_case column (`start_time`).
    const field = named ? columnNamed(named.field, source.columns) : undefined;
    const partition = named && field ? { ...named, field } : named;
    if (partition && !source.columns.includes(partition.field)) {
      throw new FerryError('FERRY_DESTINATION_WRITE_FAILED', `parquet: cannot partition ${table} by "${partition.field}": no record has that field`, {
        where,
        hint: `destination.partition.field must be a timestamp field of the records (${source.columns.join(', ')})`,
      });
    }
    await writeDataset(connection, source.name, staged, source.tag, partition);
    return staged;
  };
  /** deletes: soft in mode: append: per dataset, the scratch table of its tombstones and their columns. */
  const tombstones = new Map<string, { name: string; columns: string[] }>();

  let finished = false;
  const release = async () => {
    finished = true;
    connection.closeSync();
    instance.closeSync();
    await rm(scratch, { recursive: true, force: true });
  };
  return {
    async write(batch) {
      if (batch.records.length === 0) return;
      const shaped = tablesOfBatch(batch, options, { destination: 'parquet', exportName: ctx.syncName });
      try {
        await loadTables(connection, tables, shaped);
      } catch (cause) {
        throw new FerryError('FERRY_DESTINATION_WRITE_FAILED', `parquet: cannot stage ${options.table}: ${messageOf(cause)}`, { where, cause });
      }
    },
    ...(options.mode === 'append'
      ? {
          retainModes: ['soft'] as const,
          async retain(request: RetainRequest): Promise<number> {
            const datasets = [options.table, ...(request.stream === 'rows' ? await typeDatasets(root, options.table) : [])];
            let marked = 0;
            try {
              for (const table of datasets) {
                const name = `ferry_tombstones_${tombstones.size}`;
                const deletedAt = request.deletedAt ?? new Date().toISOString();
                const staged = { dataset: join(root, table), into: name, key: options.key ?? request.key, keys: request.keys, deletedAt, where };
                const n = await stageTombstones(connection, request.loadId ? { ...staged, loadId: request.loadId } : staged);
                if (n === 0) continue;
                const described = await connection.runAndReadAll(`DESCRIBE ${name}`);
                tombstones.set(table, { name, columns: described.getRowObjectsJS().map((row) => String(row.column_name)) });
                marked += n;
              }
            } catch (cause) {
              if (cause instanceof FerryError) throw cause;
              throw new FerryError('FERRY_DESTINATION_WRITE_FAILED', `parquet: cannot mark deleted records in ${join(root, options.table)}: ${messageOf(cause)}`, { where, cause });
            }
            return marked;
          },
        }
      : {}),
    async close() {
      if (finished) return;
      try {
        const staged = new Map<string, string>();
        for (const table of tables.written) staged.set(table, await copyOut(table, { name: table, columns: tables.columnsOf(table), tag: runId }));
        for (const [table, stones] of tombstones) staged.set(table, await copyOut(table, { ...stones, tag: `${runId}-deleted` }));
        for (const [table, folder] of staged) await publishDataset(folder, join(root, table), options.mode, join(root, `.ferry-${runId}-old-${table}`));
      } catch (cause) {
        if (cause instanceof FerryError) throw cause;
        throw new FerryError('FERRY_DESTINATION_WRITE_FAILED', `parquet: cannot write ${join(root, options.table)}: ${messageOf(cause)}`, { where, cause });
      } finally {
        await release();
      }
    },
    async abort() {
      if (finished) return;
      await release();
    },
  };
}

/** The datasets of one object type's rows of `table` already on disk (`rows` → `rows_deal`). */
async function typeDatasets(root: string, table: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true });
  return entries.filter((entry) => entry.isDirectory() && isTypeTableOf(table, entry.name) && !isChildTableOf(table, entry.name)).map((entry) => entry.name);
}
