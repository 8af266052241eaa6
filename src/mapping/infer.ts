/**
 * Field types for an object type whose fields are not declared, from the
 * values a sync is about to send. A type is only chosen when every sampled
 * value fits it; one odd value makes the field text, which always accepts.
 */
import { isIsoDate, isIsoDateTime } from '../api/timestamp.js';
import type { FieldType } from '../sdk/types.js';

// Leading zeros (zip codes, padded ids) would be lost as numbers, so they stay text.
const INTEGER = /^[+-]?(?:0|[1-9]\d*)$/;
const DECIMAL = /^[+-]?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const LONG_TEXT = 255;

type Kind = 'boolean' | 'int' | 'double' | 'date' | 'datetime' | 'list' | 'text';

function kindOf(value: unknown): Kind | undefined {
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'number':
      if (!Number.isFinite(value)) return undefined;
      return Number.isInteger(value) ? 'int' : 'double';
    case 'bigint':
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? 'int' : 'text';
    case 'string': {
      const text = value.trim();
      if (text === '') return undefined;
      const lower = text.toLowerCase();
      if (lower === 'true' || lower === 'false') return 'boolean';
      if (INTEGER.test(text)) return Number.isSafeInteger(Number(text)) ? 'int' : 'text';
      if (DECIMAL.test(text)) return 'double';
      if (isIsoDate(text)) return 'date';
      if (isIsoDateTime(text)) return 'datetime';
      return 'text';
    }
    case 'object':
      if (value === null) return undefined;
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : 'datetime';
      if (Array.isArray(value)) return 'list';
      return 'text';
    default:
      return undefined;
  }
}

/** What has been seen of one field's values. */
class Tally {
  private readonly kinds = new Set<Kind>();
  private long = false;

  observe(value: unknown): void {
    const kind = kindOf(value);
    if (kind === undefined) return;
    this.kinds.add(kind);
    if (typeof value === 'string' && (value.length > LONG_TEXT || value.includes('\n'))) this.long = true;
  }

  type(): FieldType {
    const kinds = this.kinds;
    const only = (...allowed: Kind[]) => kinds.size > 0 && [...kinds].every((k) => allowed.includes(k));
    if (only('boolean')) return 'boolean';
    if (only('int')) return 'int';
    if (only('int', 'double')) return 'double';
    if (only('date')) return 'date';
    if (only('date', 'datetime')) return 'datetime';
    if (only('list')) return 'list';
    return this.long ? 'textarea' : 'string';
  }
}

/**
 * The field type that fits every sample value: all integers → int, numbers
 * → double, booleans (or 'true'/'false') → boolean, `YYYY-MM-DD` → date, ISO
 * date-times → datetime, arrays → list, text longer than 255 characters or
 * with line breaks → textarea, anything else → string. Blank values (null,
 * undefined, '') say nothing and are skipped. A `hint` (from the source's
 * discover()) wins.
 */
export function inferFieldType(values: Iterable<unknown>, hint?: FieldType): FieldType {
  if (hint !== undefined) return hint;
  const tally = new Tally();
  for (const value of values) tally.observe(value);
  return tally.type();
}

/** Infers field types from values observed one at a time, keeping only a summary per field. */
export class FieldTypeSampler {
  private readonly tallies = new Map<string, Tally>();

  observe(field: string, value: unknown): void {
    let tally = this.tallies.get(field);
    if (tally === undefined) {
      tally = new Tally();
      this.tallies.set(field, tally);
    }
    tally.observe(value);
  }

  /** Types of every observed field, in first-seen order; `hints` (discover() types) win. */
  types(hints?: ReadonlyMap<string, FieldType>): Map<string, FieldType> {
    const out = new Map<string, FieldType>();
    for (const [field, tally] of this.tallies) out.set(field, hints?.get(field) ?? tally.type());
    return out;
  }
}
