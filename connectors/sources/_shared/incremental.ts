/**
 * Incremental reads for file sources. Files are not sorted by cursor, so a
 * file source re-reads every file and only emits records past the stored
 * position; the runner's checkpointing does the rest.
 */
import { compareCursorValues } from '../../../src/sdk/cursor.js';
import type { IncrementalRead, SourceData, SourceValue } from '../../../src/sdk/index.js';

/**
 * A record's tie-breaking key as the runner computes it: the primary-key
 * values joined by U+001F, else the origin key.
 */
export function recordKey(data: SourceData, primaryKey: readonly string[] | undefined): string | undefined {
  if (!primaryKey || primaryKey.length === 0) return undefined;
  if (primaryKey.length === 1) return keyText(data[primaryKey[0]!]);
  return primaryKey.map((field) => keyText(data[field])).join('\u001f');
}

function keyText(value: SourceValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Turn a field value into a cursor value, or null when it has none. */
export function cursorOf(value: SourceValue | undefined): string | number | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function lowered(value: string | number, lag: number): string | number {
  if (typeof value === 'number') return value - lag;
  if (/^[+-]?\d+(\.\d+)?$/.test(value)) return Number(value) - lag;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms - lag * 1000).toISOString();
}

export interface CursorFilter {
  /** The record's cursor value. */
  cursorOf(data: SourceData): string | number | null;
  /** True when the record lies past the stored position and must be emitted. */
  isNew(cursor: string | number | null, key: string | undefined): boolean;
}

/**
 * Decide which records an incremental read emits: those whose cursor is
 * greater than `after.value`, or equal with a key greater than `after.key`.
 * With `lag`, everything above `after.value - lag` is emitted again.
 * Records without a cursor value are emitted (they cannot be placed and
 * dropping them would lose them); the runner decides what to do with them.
 */
export function createCursorFilter(incremental: IncrementalRead): CursorFilter {
  const { after, lag, cursorField } = incremental;
  const threshold = after && lag ? lowered(after.value, lag) : after?.value;
  return {
    cursorOf: (data) => cursorOf(data[cursorField]),
    isNew(cursor, key) {
      if (threshold === undefined || cursor === null) return true;
      const order = compareCursorValues(cursor, threshold);
      if (order !== 0) return order > 0;
      if (lag || after?.key === undefined || key === undefined) return false;
      return key > after.key;
    },
  };
}
