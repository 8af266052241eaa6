/**
 * Timestamps as the service accepts them in request bodies: ISO 8601 strings,
 * Unix seconds or Unix milliseconds, auto-detected. Numbers whose magnitude is
 * above 2e10 are milliseconds (2e10 seconds is the year 2603), the same rule
 * the service's own validator applies; digit-only strings are read as numbers.
 */

const EPOCH_MS_THRESHOLD = 2e10;

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const NUMERIC = /^[+-]?\d+(?:\.\d+)?$/;

/** Epoch milliseconds of a Unix time given in seconds or milliseconds. */
export function epochToMillis(value: number): number {
  return Math.abs(value) > EPOCH_MS_THRESHOLD ? value : value * 1000;
}

function parseIso(text: string): number | undefined {
  const m = ISO_8601.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC rolls 2021-02-30 over to March; a calendar-invalid date is rejected instead.
  const check = new Date(local);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return undefined;
  let offsetMinutes = 0;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const zh = Number(digits.slice(0, 2));
    const zm = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (zh > 23 || zm > 59) return undefined;
    offsetMinutes = sign * (zh * 60 + zm);
  }
  return local - offsetMinutes * 60_000;
}

/**
 * Parse a request-body timestamp into epoch milliseconds, or `undefined` when
 * it is not one the service accepts.
 */
export function parseTimestamp(input: unknown): number | undefined {
  if (typeof input === 'number') {
    return Number.isFinite(input) ? checkRange(epochToMillis(input)) : undefined;
  }
  if (typeof input !== 'string') return undefined;
  const text = input.trim();
  if (text === '') return undefined;
  if (NUMERIC.test(text)) return checkRange(epochToMillis(Number(text)));
  const ms = parseIso(text);
  return ms === undefined ? undefined : checkRange(ms);
}

function checkRange(ms: number): number | undefined {
  // JavaScript dates end at ±8.64e15 ms; anything beyond cannot be rendered.
  return Math.abs(ms) <= 8.64e15 ? ms : undefined;
}

/** Normalise a request-body timestamp to an ISO 8601 UTC string, or `undefined`. */
export function toIsoTimestamp(input: unknown): string | undefined {
  const ms = parseTimestamp(input);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * True for a calendar date written `YYYY-MM-DD`. Checked by arithmetic, not
 * through parseIso and a Date: row pushes ask this twice per date field.
 */
export function isIsoDate(input: unknown): boolean {
  if (typeof input !== 'string' || !ISO_DATE.test(input)) return false;
  const year = Number(input.slice(0, 4));
  const month = Number(input.slice(5, 7));
  const day = Number(input.slice(8, 10));
  // Date.UTC, which parseIso goes through, reads years 0–99 as 1900–1999: so does this.
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year < 100 ? year + 1900 : year, month);
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * True for an ISO 8601 date-time string: a date and a time of day. A date
 * alone is a `date`, and a digit string is not ISO 8601 at all.
 */
export function isIsoDateTime(input: unknown): boolean {
  if (typeof input !== 'string') return false;
  const text = input.trim();
  return !NUMERIC.test(text) && !isIsoDate(text) && parseIso(text) !== undefined;
}

/**
 * A request-body timestamp read as strictly as the spec allows: a number
 * (Unix seconds or milliseconds) or an ISO 8601 string (a date alone is
 * midnight UTC). A digit string, which `parseTimestamp` reads leniently for
 * mapped source data, is not ISO 8601 and is refused here.
 */
export function parseRequestTimestamp(input: unknown): number | undefined {
  if (typeof input === 'number') return parseTimestamp(input);
  return typeof input === 'string' && !NUMERIC.test(input.trim()) ? parseTimestamp(input) : undefined;
}
