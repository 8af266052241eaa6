/**
 * The runner works on units: one source record, or one group of records when
 * the sync has `group: { by }`. A unit carries what the mapping sees, where it
 * came from, and its cursor position.
 */
import { groupRecords } from '../mapping/index.js';
import { compareCursorValues } from '../sdk/cursor.js';
import { formatOrigin } from '../sdk/origin.js';
import type { CursorPosition, RecordOrigin, SourceData, SourceRecord } from '../sdk/types.js';

export interface Unit {
  /** What the mapping evaluates against: the record's data, or `{ key, records }`. */
  input: unknown;
  origin: string;
  position?: CursorPosition;
  /** Set when the unit replays a dead-letter entry. */
  failureId?: number;
}

function keyOf(data: SourceData, primaryKey: readonly string[] | undefined, origin: RecordOrigin): string | undefined {
  if (primaryKey && primaryKey.length > 0) {
    return primaryKey.map((field) => String(data[field] ?? '')).join('\u001f');
  }
  return origin.key;
}

function positionOf(record: SourceRecord, primaryKey: readonly string[] | undefined): CursorPosition | undefined {
  if (record.cursor === undefined || record.cursor === null) return undefined;
  const key = keyOf(record.data, primaryKey, record.origin);
  return key === undefined ? { value: record.cursor } : { value: record.cursor, key };
}

/** Turn a record stream into units, grouping when asked. */
export async function* toUnits(
  records: AsyncIterable<SourceRecord>,
  options: { groupBy?: string | string[]; primaryKey?: readonly string[] },
): AsyncIterable<Unit> {
  if (!options.groupBy) {
    for await (const record of records) {
      const position = positionOf(record, options.primaryKey);
      yield { input: record.data, origin: formatOrigin(record.origin), ...(position ? { position } : {}) };
    }
    return;
  }
  // A group's cursor is the highest of its records' cursors, tracked on the
  // way into the grouper since groups do not keep per-record cursors.
  const highest = new Map<string, string | number>();
  async function* tracked(): AsyncIterable<SourceRecord> {
    for await (const record of records) {
      if (record.cursor !== undefined && record.cursor !== null) {
        const key = JSON.stringify(groupKey(record.data, options.groupBy!));
        const seen = highest.get(key);
        if (seen === undefined || compareCursorValues(record.cursor, seen) > 0) highest.set(key, record.cursor);
      }
      yield record;
    }
  }
  for await (const group of groupRecords(tracked(), options.groupBy)) {
    const mapKey = JSON.stringify(group.key);
    // Kept after use: a key that reappears later in the input is emitted again.
    const cursor = highest.get(mapKey);
    yield {
      input: { key: group.key, records: group.records },
      origin: formatOrigin(group.origin),
      ...(cursor !== undefined ? { position: { value: cursor, key: mapKey } } : {}),
    };
  }
}

function groupKey(data: SourceData, by: string | string[]): unknown {
  return Array.isArray(by) ? by.map((field) => data[field] ?? null) : (data[by] ?? null);
}
