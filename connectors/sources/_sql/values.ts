/**
 * Value conversions shared by the drivers: integers beyond 2^53 and
 * timestamps must reach the record as exact text, never through a JS float or
 * Date (which keeps only milliseconds).
 */
import type { SourceValue } from '../../../src/sdk/index.js';

/** An integer from its decimal text: a number when it is safe, else the text. */
export function intValue(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** A bigint as a number when safe, else its decimal text. */
export function fromBigInt(value: bigint): number | string {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
}

const SQL_TIMESTAMP = /^(\d{4,}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?\s*(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$/i;

/**
 * A database timestamp as UTC ISO 8601 text, keeping every fractional digit:
 * `2024-03-01 09:15:30.123456+00` → `2024-03-01T09:15:30.123456Z`. Text without
 * a zone (timestamp without time zone, DATETIME) is read as UTC. Text it cannot
 * read (`infinity`, BC dates) is returned unchanged.
 */
export function isoTimestamp(text: string): string {
  const m = SQL_TIMESTAMP.exec(text.trim());
  if (!m) return text;
  const [, date = '', time = '', fraction = '', zone = 'Z'] = m;
  const offset = offsetSeconds(zone);
  if (offset === 0) return `${date}T${time}${fraction}Z`;
  // A non-UTC offset: shift whole seconds, the fraction stays as written.
  const ms = Date.parse(`${date}T${time}Z`) - offset * 1000;
  if (Number.isNaN(ms)) return text;
  return `${new Date(ms).toISOString().slice(0, 19)}${fraction}Z`;
}

function offsetSeconds(zone: string): number {
  if (/^z$/i.test(zone)) return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(/:/g, '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4) || '0');
  const seconds = Number(digits.slice(4, 6) || '0');
  return sign * (hours * 3600 + minutes * 60 + seconds);
}

/**
 * A record value as cursor text, exactly as emitted (no float or Date in
 * between), or null when the row has no cursor value.
 */
export function cursorText(value: SourceValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

/** A record value as key text, the way the runner forms tie-break keys (`String(value)`). */
export function keyPart(value: SourceValue | undefined): string {
  return String(value ?? '');
}
