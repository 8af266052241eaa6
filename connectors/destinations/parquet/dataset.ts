/**
 * Parquet datasets on disk: a DuckDB table copied out to files in a staging
 * folder (partitioned or not), moved into place whole, and the scratch
 * folders killed runs leave behind.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { ConnectorLogger } from '../../../src/sdk/index.js';
import { quoteIdentifier } from '../_export/columns.js';
import type { ParquetOptions } from './options.js';

const PARTITION_FORMATS = { year: '%Y', month: '%Y-%m', day: '%Y-%m-%d' } as const;

/**
 * `table` as Parquet files under `folder`, named after the run: one file,
 * or Hive-style folders (`month=2024-03/`) by the UTC period of a timestamp
 * field (the connection's TimeZone must be UTC).
 */
export async function writeDataset(connection: DuckDBConnection, table: string, folder: string, runId: string, partition: ParquetOptions['partition']): Promise<void> {
  await mkdir(folder, { recursive: true });
  if (!partition) {
    await connection.run(`COPY ${quoteIdentifier(table)} TO '${sqlText(join(folder, `part-${runId}.parquet`))}' (FORMAT PARQUET)`);
    return;
  }
  const column = quoteIdentifier(partition.by);
  const value = `strftime(TRY_CAST(${quoteIdentifier(partition.field)} AS TIMESTAMPTZ), '${PARTITION_FORMATS[partition.by]}')`;
  await connection.run(
    `COPY (SELECT *, ${value} AS ${column} FROM ${quoteIdentifier(table)}) TO '${sqlText(folder)}' ` +
      `(FORMAT PARQUET, PARTITION_BY (${column}), FILENAME_PATTERN 'part-${runId}-{i}', OVERWRITE_OR_IGNORE)`,
  );
}

/**
 * Move a staged dataset into place. append: each file joins the target at
 * its relative path (earlier files untouched). overwrite: the target folder
 * is set aside under `old`, the staged one renamed in, the old one removed.
 */
export async function publishDataset(staged: string, target: string, mode: ParquetOptions['mode'], old: string): Promise<void> {
  if (mode === 'append') {
    for (const file of await filesUnder(staged)) {
      const destination = join(target, relative(staged, file));
      await mkdir(dirname(destination), { recursive: true });
      await rename(file, destination);
    }
    return;
  }
  await rename(target, old).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(staged, target);
  await rm(old, { recursive: true, force: true });
}

/** Scratch folders of killed runs (a day old: no live run is that slow to start writing), removed and logged. */
export async function removeAbandonedScratch(root: string, logger: ConnectorLogger): Promise<void> {
  const dayAgo = Date.now() - 24 * 3_600_000;
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith('.ferry-')) continue;
    const folder = join(root, entry.name);
    const info = await stat(folder).catch(() => undefined);
    if (!info || info.mtimeMs > dayAgo) continue;
    await rm(folder, { recursive: true, force: true });
    logger.warn({ folder }, 'parquet: removed the scratch folder of an export that was killed');
  }
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** A path inside a SQL string literal. */
export function sqlText(text: string): string {
  return text.replaceAll("'", "''");
}
