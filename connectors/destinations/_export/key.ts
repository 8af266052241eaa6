/** The key column of an upserting destination, and records that lack it. */
import { FerryError, type DestinationBatch } from '../../../src/sdk/index.js';
import { columnNamed } from './columns.js';

/** The `key` option when set, else the field the runner says identifies the stream's records. */
export function keyOf(batch: DestinationBatch, option: string | undefined, destination: string, exportName: string): string {
  // A key named as the service names it (`conversationId`) finds its snake_case column (`conversation_id`).
  const renamed = option !== undefined && batch.conventions?.naming === 'snake_case' && batch.records[0] ? columnNamed(option, Object.keys(batch.records[0])) : undefined;
  const key = renamed ?? option ?? batch.key;
  if (key === undefined) {
    throw new FerryError('FERRY_CONFIG_INVALID', `${destination} needs a key column to upsert ${batch.stream} on`, {
      where: `export ${exportName}`,
      hint: 'set destination.key to the field that identifies a record',
    });
  }
  return key;
}

/** Every record must carry a key value, or an upsert could not find it again. */
export function assertKeys(records: readonly Readonly<Record<string, unknown>>[], key: string, destination: string, exportName: string): void {
  const missing = records.findIndex((record) => record[key] === null || record[key] === undefined);
  if (missing !== -1) {
    throw new FerryError('FERRY_DESTINATION_WRITE_FAILED', `${destination}: record ${missing + 1} of a batch has no value in the key column "${key}"`, {
      where: `export ${exportName}`,
      hint: 'choose a key field every record has (destination.key)',
      details: { key },
    });
  }
}
