/**
 * `deletes: mirror` for exports. The service's read side lists live records
 * only and has no list of deletions, so a deleted record is found by its
 * absence: after a run, every key the service lists for the export's
 * filters is collected (from the run itself when it read everything, else by
 * listing the keys without details or time bound) and the destination drops
 * the records whose key is not among them.
 */
import type { Logger } from 'pino';
import { FerryError } from '../sdk/errors.js';
import type { DestinationWriter, LiveKeys } from '../sdk/types.js';
import { KeySpool } from './key-spool.js';
import { readItems, type ReadOptions } from './read-items.js';
import type { ExportService, ResourceSpec } from './resources.js';

/** A writer that can mirror deletions, or a configuration error naming the destination. */
export function assertCanMirror(writer: DestinationWriter, destination: string, exportName: string, deletes: 'mirror' | 'soft' = 'mirror'): void {
  const mode = deletes === 'soft' ? 'soft' : 'delete';
  if (writer.retain && (!writer.retainModes || writer.retainModes.includes(mode))) return;
  const other = writer.retain && writer.retainModes?.length === 1 && writer.retainModes[0] !== mode ? writer.retainModes[0] : undefined;
  throw new FerryError('FERRY_CONFIG_INVALID', `destination ${destination} cannot ${deletes === 'soft' ? 'mark' : 'delete'} records, so deletes: ${deletes} cannot apply`, {
    where: `export ${exportName}`,
    hint: other
      ? `it can apply deletes: ${other === 'soft' ? 'soft' : 'mirror'} (an append-only dataset marks a deleted record with a newer copy; it never rewrites its files)`
      : 'use a table destination (sqlite-table, postgres-table, duckdb), parquet or a JSON Lines file in mode: append with deletes: soft, or a file/parquet destination in mode: overwrite without incremental',
  });
}

/**
 * Every key the list endpoint returns for the query: list pages only, under
 * the same request ceilings as the run; ten million keys go to a temporary
 * file, not the heap. The caller closes the spool.
 */
export async function listKeys(
  service: ExportService,
  spec: ResourceSpec,
  query: Readonly<Record<string, string | number | boolean>>,
  options: Omit<ReadOptions, 'details'>,
): Promise<KeySpool> {
  const keys = new KeySpool();
  try {
    for await (const page of readItems(service, spec, query, { ...options, details: false })) for (const item of page.items) keys.add(String(item[spec.key]));
    return keys;
  } catch (error) {
    keys.close();
    throw error;
  }
}

/**
 * Drop the destination's records that are not in `live`; returns how many
 * went. An empty `live` deletes nothing: a service that lists nothing at all
 * is likelier a wrong filter or an outage than an empty account.
 */
export async function mirrorDeletes(
  writer: DestinationWriter,
  spec: ResourceSpec,
  live: LiveKeys,
  logger: Logger,
  how: { key?: string; mode?: 'delete' | 'soft'; deletedAt?: string; loadId?: string } = {},
): Promise<number> {
  const option = how.mode === 'soft' ? 'deletes: soft' : 'deletes: mirror';
  if (live.size === 0) {
    logger.warn({ resource: spec.resource }, `${option}: the service lists no record for this export; nothing was deleted`);
    return 0;
  }
  const deleted = await writer.retain!({
    stream: spec.resource,
    key: how.key ?? spec.key,
    keys: live,
    ...(how.mode ? { mode: how.mode } : {}),
    ...(how.deletedAt ? { deletedAt: how.deletedAt } : {}),
    ...(how.loadId ? { loadId: how.loadId } : {}),
  });
  if (deleted > 0) {
    const what = how.mode === 'soft' ? 'were marked deleted (_ferry_deleted_at) in the destination' : 'were deleted from the destination';
    logger.info({ deleted, resource: spec.resource }, `${option}: records the service no longer lists ${what}`);
  }
  return deleted;
}
