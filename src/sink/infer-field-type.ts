/** The object-type field type a mapped value suggests, for fields nobody declared. */
import type { FieldType } from '../sdk/types.js';
import { isIsoDate, isIsoDateTime } from '../api/timestamp.js';

/** Longer strings, or any with a line break, are multi-line text. */
const SINGLE_LINE_MAX = 255;

export function inferFieldType(value: unknown): FieldType {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double';
  if (typeof value === 'bigint') return 'int';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Date) return 'datetime';
  if (typeof value === 'string') {
    if (isIsoDate(value)) return 'date';
    if (isIsoDateTime(value)) return 'datetime';
    return value.length > SINGLE_LINE_MAX || value.includes('\n') ? 'textarea' : 'string';
  }
  // null, undefined or an object: nothing better than text to go on.
  return 'string';
}
