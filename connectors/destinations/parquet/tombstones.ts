/**
 * `deletes: soft` for a dataset in `mode: append`, whose files are never
 * rewritten: a record the service no longer lists gets a newer copy of its
 * latest row with `_ferry_deleted_at` set (a tombstone), written with the
 * run's own files, so the dataset's "newest copy per key" query
 * (`QUALIFY row_number() OVER (PARTITION BY key ORDER BY _ferry_loaded_at
 * DESC) = 1`) finds it deleted, with the values it last had. Child datasets
 * get no tombstone: a child row belongs to its parent's newest copy.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { FerryError, inChunks, type LiveKeys } from '../../../src/sdk/index.js';
import { columnNamed, quoteIdentifier } from '../_export/columns.js';
import { DELETED_AT_COLUMN, LOAD_ID_COLUMN as LOAD_ID, LOADED_AT_COLUMN as LOADED_AT } from '../_export/shape.js';
import { sqlText } from './dataset.js';

const LIVE = 'ferry_live_keys';
/** Live keys per appender: never the whole list as one array. */
const LIVE_KEYS_PER_APPEND = 10_000;

export interface TombstoneRequest {
  /** The dataset's folder, holding the earlier runs' files. */
  dataset: string;
  /** The scratch table to stage them in. */
  into: string;
  /** The key field, as the service or the destination's `key` option names it. */
  key: string;
  keys: LiveKeys;
  deletedAt: string;
  loadId?: string;
  where: string;
}

/**
 * Stage in the scratch database, as table `request.into`, a tombstone for
 * every key whose newest copy in the dataset is live and that `keys` lacks;
 * returns how many (0: nothing staged, no table left).
 */
export async function stageTombstones(connection: DuckDBConnection, request: TombstoneRequest): Promise<number> {
  const into = quoteIdentifier(request.into);
  await connection.run(`DROP TABLE IF EXISTS ${into}`);
  if (!(await hasParquetFiles(request.dataset))) return 0;
  const files = `read_parquet('${sqlText(join(request.dataset, '**', '*.parquet'))}', union_by_name = true, hive_partitioning = false)`;
  const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${files}`);
  const columns = described.getRowObjectsJS().map((row) => String(row.column_name));
  const key = columnNamed(request.key, columns);
  if (key === undefined) return 0;
  if (!columns.includes(LOADED_AT)) {
    throw new FerryError('FERRY_CONFIG_INVALID', `parquet: deletes: soft cannot tell the newest copy of a record in ${request.dataset}: its files have no ${LOADED_AT} column`, {
      where: request.where,
      hint: 'set metadata: true on the export (the default of a new one), or use mode: overwrite, where a deleted record is simply not written again',
    });
  }

  await connection.run(`CREATE OR REPLACE TEMP TABLE ${LIVE} (k VARCHAR)`);
  for (const chunk of inChunks(request.keys, LIVE_KEYS_PER_APPEND)) {
    const appender = await connection.createAppender(LIVE, 'main', 'temp');
    try {
      for (const k of chunk) {
        appender.appendVarchar(k);
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  const k = quoteIdentifier(key);
  const hasDeletedAt = columns.includes(DELETED_AT_COLUMN);
  const stamped = [
    `CAST($1 AS TIMESTAMPTZ) AS ${quoteIdentifier(DELETED_AT_COLUMN)}`,
    `CAST($1 AS TIMESTAMPTZ) AS ${quoteIdentifier(LOADED_AT)}`,
    ...(columns.includes(LOAD_ID) ? [`CAST($2 AS VARCHAR) AS ${quoteIdentifier(LOAD_ID)}`] : []),
  ];
  const replaced = hasDeletedAt ? stamped : stamped.slice(1);
  const select = `* ${replaced.length > 0 ? `REPLACE (${replaced.join(', ')})` : ''}${hasDeletedAt ? '' : `, ${stamped[0]}`}`;
  await connection.run(
    `CREATE TABLE ${into} AS SELECT ${select} FROM (` +
      `SELECT * FROM ${files} QUALIFY row_number() OVER (PARTITION BY ${k} ORDER BY ${quoteIdentifier(LOADED_AT)} DESC) = 1` +
      `) AS newest WHERE ${hasDeletedAt ? `${quoteIdentifier(DELETED_AT_COLUMN)} IS NULL AND ` : ''}CAST(${k} AS VARCHAR) NOT IN (SELECT k FROM ${LIVE})`,
    [request.deletedAt, request.loadId ?? null],
  );
  await connection.run(`DROP TABLE ${LIVE}`);
  const counted = await connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM ${into}`);
  const n = Number(counted.getRowObjectsJS()[0]!.n);
  if (n === 0) await connection.run(`DROP TABLE ${into}`);
  return n;
}

async function hasParquetFiles(folder: string): Promise<boolean> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.some((entry) => entry.isFile() && entry.name.endsWith('.parquet'));
}
