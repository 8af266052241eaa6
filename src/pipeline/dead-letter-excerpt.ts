/**
 * What the dead-letter keeps of one record: the whole of it up to
 * {@link DEAD_LETTER_VALUE_BYTES}, else a bounded excerpt that says it is
 * one. A 50 MB field must not become a 100 MB state file (the source record
 * and the mapped body are both kept), nor be held twice more in memory to
 * be written there. The origin, the reason and the service's answer are kept
 * whole, so an entry still says where the record is and what was wrong.
 *
 * An excerpt is marked with {@link EXCERPT_MARK}: `ferry failures retry`
 * does not replay it (it would push the cut record), and says so.
 */
import { formatBytes } from '../sdk/bytes.js';

/** At most this much of a record's source data, and as much of its mapped body, is kept in its dead-letter entry (about bytes: characters of the JSON text). */
export const DEAD_LETTER_VALUE_BYTES = 64 * 1024;

/** The key an excerpt carries: `{ "$ferryExcerpt": { sizeBytes, keptBytes }, …the fields, cut… }`. */
export const EXCERPT_MARK = '$ferryExcerpt';

/** What {@link EXCERPT_MARK} holds. */
export interface ExcerptNote {
  /** About how large the whole value was (characters of its JSON text; at least this). */
  sizeBytes: number;
  /** The budget the excerpt was cut to. */
  keptBytes: number;
  note: string;
}

/** A value as the dead-letter keeps it: the same value when within `limit`, else an excerpt. */
export interface Bounded {
  value: unknown;
  /** Set when the value was cut: about how large it was. */
  sizeBytes?: number;
}

/** Values nested deeper than this are not walked into (an excerpt says so). */
const MAX_DEPTH = 32;

/**
 * About the size of `value`'s JSON text, counting no further than `limit`
 * (then `limit + 1`, or more): a walk that copies nothing.
 */
function sizeUpTo(value: unknown, limit: number, depth = 0): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object') return 8;
  if (depth >= MAX_DEPTH) return limit + 1;
  let size = 2;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      size += sizeUpTo(item, limit - size, depth + 1) + 1;
      if (size > limit) return size;
    }
    return size;
  }
  for (const [key, item] of Object.entries(value)) {
    size += key.length + 4 + sizeUpTo(item, limit - size, depth + 1);
    if (size > limit) return size;
  }
  return size;
}

/** The whole size, for the note (strings are counted by length, never copied). */
function sizeOf(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return 8;
  let size = 2;
  if (Array.isArray(value)) for (const item of value as unknown[]) size += sizeOf(item, depth + 1) + 1;
  else for (const [key, item] of Object.entries(value)) size += key.length + 4 + sizeOf(item, depth + 1);
  return size;
}

/** `value` cut to about `budget.left` characters; every cut says what was left out. */
function cut(value: unknown, budget: { left: number }, depth: number): unknown {
  if (typeof value === 'string') {
    const keep = Math.max(0, Math.min(value.length, budget.left - 2));
    budget.left -= keep + 2;
    return keep === value.length ? value : `${value.slice(0, keep)}… [cut: ${value.length} characters in all]`;
  }
  if (value === null || typeof value !== 'object') {
    budget.left -= 8;
    return value;
  }
  if (depth >= MAX_DEPTH) return '… [cut: nested too deep]';
  budget.left -= 2;
  if (Array.isArray(value)) {
    const items = value as unknown[];
    const out: unknown[] = [];
    for (const item of items) {
      if (budget.left <= 0) {
        out.push(`… [cut: ${items.length - out.length} more items]`);
        break;
      }
      out.push(cut(item, budget, depth + 1));
    }
    return out;
  }
  const entries = Object.entries(value);
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const [key, item] of entries) {
    if (budget.left <= 0) {
      out['…'] = `[cut: ${entries.length - kept} more fields]`;
      break;
    }
    budget.left -= key.length + 4;
    out[key] = cut(item, budget, depth + 1);
    kept++;
  }
  return out;
}

/**
 * `value` as the dead-letter keeps it: unchanged when its JSON text is about
 * `limit` characters or fewer; else an object marked {@link EXCERPT_MARK}
 * with the value's fields (or the value under `value`), each string cut
 * where the budget ends.
 */
export function boundForDeadLetter(value: unknown, limit: number = DEAD_LETTER_VALUE_BYTES): Bounded {
  if (value === null || value === undefined || sizeUpTo(value, limit) <= limit) return { value };
  const sizeBytes = sizeOf(value);
  const keptBytes = limit;
  const note: ExcerptNote = {
    sizeBytes,
    keptBytes,
    note: `an excerpt: the whole value (about ${formatBytes(sizeBytes)}) is larger than the dead-letter keeps of one record (${formatBytes(keptBytes)})`,
  };
  const excerpt = cut(value, { left: limit }, 0);
  const wrapped = excerpt !== null && typeof excerpt === 'object' && !Array.isArray(excerpt) ? { [EXCERPT_MARK]: note, ...excerpt } : { [EXCERPT_MARK]: note, value: excerpt };
  return { value: wrapped, sizeBytes };
}

/** Whether a stored value is an excerpt (see {@link boundForDeadLetter}). */
export function isExcerpt(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && EXCERPT_MARK in value;
}

/**
 * A dead-letter entry as it is stored: the source record, the mapped body
 * and the service's answer each bounded by {@link boundForDeadLetter}; when
 * one was cut, the reason says so (once, for the largest).
 */
export function boundedFailure<F extends { reason: string; sourceRecord: unknown; body: unknown; errorBody: unknown }>(failure: F, limit: number = DEAD_LETTER_VALUE_BYTES): F {
  const sourceRecord = boundForDeadLetter(failure.sourceRecord, limit);
  const body = boundForDeadLetter(failure.body, limit);
  const errorBody = boundForDeadLetter(failure.errorBody, limit);
  const largest = Math.max(sourceRecord.sizeBytes ?? 0, body.sizeBytes ?? 0, errorBody.sizeBytes ?? 0);
  if (largest === 0) return failure;
  return {
    ...failure,
    reason: `${failure.reason} (the record is about ${formatBytes(largest)}: its dead-letter entry keeps a ${formatBytes(limit)} excerpt)`,
    sourceRecord: sourceRecord.value,
    body: body.value,
    errorBody: errorBody.value,
  };
}
