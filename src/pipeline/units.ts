/**
 * The runner works on units: one source record, or one group of records when
 * the sync has `group: { by }`. A unit carries what the mapping sees, where it
 * came from, and its cursor position.
 */
import { canonicalJson, groupRecords } from '../mapping/index.js';
import { FerryError } from '../sdk/errors.js';
import { formatOrigin } from '../sdk/origin.js';
import type { BufferedIterator, CursorPosition, RecordOp, RecordOrigin, SourceData, SourceRecord } from '../sdk/types.js';

export interface Unit {
  /** What the mapping evaluates against: the record's data, or `{ key, records }`. */
  input: unknown;
  /** The record's `dataText` (a single record's unit only): `input` follows from it, so its hash stands for `input`'s. */
  inputText?: string;
  /** The record's primary-key text (its origin's key; a single record's unit only): known without reading `input`. */
  originKey?: string;
  origin: string;
  position?: CursorPosition;
  /**
   * A group's lowest record cursor (its position holds the highest): the
   * checkpoint tracker needs both to know whether a later group reaches
   * below a position it would store.
   */
  lowestCursor?: string | number;
  /** Set when the unit replays a dead-letter entry. */
  failureId?: number;
  /** `delete` when a change source said the record is gone (SourceRecord.op); absent for upserts. */
  op?: RecordOp;
}

function keyOf(data: SourceData, primaryKey: readonly string[] | undefined, origin: RecordOrigin): string | undefined {
  if (primaryKey && primaryKey.length === 1) return String(data[primaryKey[0]!] ?? '');
  if (primaryKey && primaryKey.length > 0) {
    return primaryKey.map((field) => String(data[field] ?? '')).join('\u001f');
  }
  return origin.key;
}

function positionOf(record: SourceRecord, primaryKey: readonly string[] | undefined): CursorPosition | undefined {
  // A change source's resume token stands for the position (it is in read order by definition).
  if (record.checkpoint !== undefined) return { value: record.checkpoint };
  if (record.cursor === undefined || record.cursor === null) return undefined;
  const key = keyOf(record.data, primaryKey, record.origin);
  return key === undefined ? { value: record.cursor } : { value: record.cursor, key };
}

/**
 * A single record's unit. Its input is the record's data, read only when
 * asked for: a source may work the data out then (SourceRecord.data), and a
 * re-run that finds the record unchanged by its text never asks.
 */
class RecordUnit implements Unit {
  inputText?: string;
  originKey?: string;
  position?: CursorPosition;
  op?: RecordOp;

  constructor(
    private readonly record: SourceRecord,
    readonly origin: string,
  ) {}

  get input(): unknown {
    return this.record.data;
  }
}

function unitOf(record: SourceRecord, primaryKey: readonly string[] | undefined): Unit {
  const unit = new RecordUnit(record, formatOrigin(record.origin));
  if (record.dataText !== undefined) unit.inputText = record.dataText;
  if (record.origin.key !== undefined) unit.originKey = record.origin.key;
  const position = positionOf(record, primaryKey);
  if (position) unit.position = position;
  if (record.op === 'delete') unit.op = 'delete';
  return unit;
}

/**
 * A primaryKey the records do not have leaves every record without its key,
 * unseen (the incremental tie-breaker reads ''): refuse it at the first
 * record, whatever the source (a CSV source refuses it at the header already).
 */
function checkKeyColumns(record: SourceRecord, primaryKey: readonly string[]): void {
  const data: SourceData = record.data;
  const missing = primaryKey.filter((column) => !Object.prototype.hasOwnProperty.call(data, column));
  if (missing.length === 0) return;
  const origin = formatOrigin(record.origin);
  throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `primaryKey ${missing.map((name) => `"${name}"`).join(', ')} is not a field of the first record (${origin}; it has: ${Object.keys(data).slice(0, 12).join(', ')})`, {
    where: origin,
    hint: 'primaryKey names the field(s) that identify a record: fix the name (ferry discover <sync> lists the fields)',
  });
}

/**
 * Turn a record stream into units, grouping when asked. Ungrouped, the
 * units' iterator offers takeBuffered when the source's does.
 */
export function toUnits(
  records: AsyncIterable<SourceRecord>,
  options: { groupBy?: string | string[]; sortedByGroup?: boolean; primaryKey?: readonly string[] },
): AsyncIterable<Unit> {
  if (options.groupBy) return groupedUnits(records, { ...options, groupBy: options.groupBy });
  const { primaryKey } = options;
  // One record, one unit: a mapped iterator rather than a generator stage, which costs a few promises per record.
  return {
    [Symbol.asyncIterator](): BufferedIterator<Unit> {
      const inner: BufferedIterator<SourceRecord> = records[Symbol.asyncIterator]();
      let keyChecked = primaryKey === undefined || primaryKey.length === 0;
      const firstCheck = (record: SourceRecord): void => {
        keyChecked = true;
        if (primaryKey) checkKeyColumns(record, primaryKey);
      };
      const step = (result: IteratorResult<SourceRecord>): IteratorResult<Unit> => {
        if (result.done) return { done: true, value: undefined };
        if (!keyChecked) firstCheck(result.value);
        return { done: false, value: unitOf(result.value, primaryKey) };
      };
      const units: BufferedIterator<Unit> = {
        next: () => inner.next().then(step),
        return: async () => {
          await inner.return?.();
          return { done: true, value: undefined };
        },
      };
      if (typeof inner.takeBuffered === 'function') {
        const take = inner.takeBuffered.bind(inner);
        units.takeBuffered = (max) => {
          const taken = take(max);
          if (!keyChecked && taken.length > 0) firstCheck(taken[0]!);
          const mapped = new Array<Unit>(taken.length);
          for (let i = 0; i < taken.length; i++) mapped[i] = unitOf(taken[i]!, primaryKey);
          return mapped;
        };
      }
      return units;
    },
  };
}

async function* groupedUnits(
  records: AsyncIterable<SourceRecord>,
  options: { groupBy: string | string[]; sortedByGroup?: boolean },
): AsyncIterable<Unit> {
  // A group's position is the highest of its records' cursors (and it also carries the lowest): the grouper keeps
  // them with the group in its scratch file, so memory does not grow with the number of groups.
  for await (const group of groupRecords(records, options.groupBy, { sorted: options.sortedByGroup === true })) {
    const { cursor } = group;
    yield {
      input: { key: group.key, records: group.records },
      origin: formatOrigin(group.origin),
      ...(cursor !== undefined ? { position: { value: cursor.highest, key: canonicalJson(group.key) }, lowestCursor: cursor.lowest } : {}),
    };
  }
}
