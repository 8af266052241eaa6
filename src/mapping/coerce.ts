/**
 * Row field values converted to their declared field type, only where the
 * conversion loses nothing and has one reading: '42' → 42 for int, 'yes' →
 * true for boolean. Anything else is refused and the record is invalid,
 * rather than sending a guess.
 */
import { isIsoDate } from '../api/timestamp.js';
import type { FieldType } from '../sdk/types.js';
import { toJsonSafe } from './json-safe.js';
import { normaliseTimestamp } from './timestamps.js';

export type Coerced = { ok: true; value: unknown } | { ok: false };

const INTEGER = /^[+-]?\d+(?:\.0*)?$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);

const ok = (value: unknown): Coerced => ({ ok: true, value });
const refused: Coerced = { ok: false };

function toInt(value: unknown): Coerced {
  if (typeof value === 'number') return Number.isInteger(value) ? ok(value) : refused;
  if (typeof value === 'string' && INTEGER.test(value.trim())) {
    const n = Number(value.trim());
    // Beyond 2^53 the number would not round-trip to the same digits.
    return Number.isSafeInteger(n) ? ok(n) : refused;
  }
  return refused;
}

function toDouble(value: unknown): Coerced {
  if (typeof value === 'number') return Number.isFinite(value) ? ok(value) : refused;
  if (typeof value === 'string' && DECIMAL.test(value.trim())) {
    const n = Number(value.trim());
    return Number.isFinite(n) ? ok(n) : refused;
  }
  return refused;
}

function toBoolean(value: unknown): Coerced {
  if (typeof value === 'boolean') return ok(value);
  if (value === 1 || value === 0) return ok(value === 1);
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE.has(word)) return ok(true);
    if (FALSE.has(word)) return ok(false);
  }
  return refused;
}

function toDate(value: unknown): Coerced {
  if (typeof value === 'string' && isIsoDate(value.trim())) return ok(value.trim());
  if (typeof value === 'boolean' || value === null || typeof value === 'object') return refused;
  // A timestamp becomes a date only at exactly midnight UTC; cutting off a time of day would lose it.
  const iso = normaliseTimestamp(value);
  return iso !== undefined && iso.endsWith('T00:00:00.000Z') ? ok(iso.slice(0, 10)) : refused;
}

function toDateTime(value: unknown): Coerced {
  if (typeof value === 'boolean' || typeof value === 'object') return refused;
  const iso = normaliseTimestamp(value);
  return iso === undefined ? refused : ok(iso);
}

function toText(value: unknown): Coerced {
  if (typeof value === 'string') return ok(value);
  if (typeof value === 'number' || typeof value === 'boolean') return ok(String(value));
  return refused;
}

/** Convert a mapped value to the shape its field type needs. `null` stays null (an empty value). */
export function coerceFieldValue(input: unknown, type: FieldType): Coerced {
  const value = toJsonSafe(input);
  if (value === null) return ok(null);
  switch (type) {
    case 'string':
    case 'textarea':
      return toText(value);
    case 'int':
      return toInt(value);
    case 'double':
      return toDouble(value);
    case 'boolean':
      return toBoolean(value);
    case 'date':
      return toDate(value);
    case 'datetime':
      return toDateTime(value);
    case 'list':
      return Array.isArray(value) ? ok(value) : refused;
  }
}
