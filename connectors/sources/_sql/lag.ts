/**
 * `lag`: re-read a window below the stored cursor, for writers that commit
 * rows with a cursor value older than rows already read. The lowered value is
 * computed on the cursor text itself so no precision is lost (decimal digits
 * and microseconds stay exact).
 */
import type { ColumnKind } from './columns.js';

const DECIMAL = /^[+-]?\d+(?:\.\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})([T ])(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(.*)$/;

/** `value - lag` for a numeric, date or timestamp cursor; other values are returned unchanged. */
export function lowerCursor(value: string, lag: number, kind: ColumnKind): string {
  if (!(lag > 0)) return value;
  const text = value.trim();
  if ((kind === 'int' || kind === 'decimal' || kind === 'float' || kind === 'other') && DECIMAL.test(text)) {
    return subtractDecimal(text, lag);
  }
  const date = DATE.exec(text);
  if (date) {
    const ms = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])) - lag * 1000;
    return new Date(Math.floor(ms / 86_400_000) * 86_400_000).toISOString().slice(0, 10);
  }
  const ts = TIMESTAMP.exec(text);
  if (ts) return lowerTimestamp(ts, lag);
  return value;
}

function subtractDecimal(text: string, lag: number): string {
  const lagText = lag.toString();
  if (/e/i.test(lagText)) return String(Number(text) - lag);
  const scale = Math.max(fractionLength(text), fractionLength(lagText));
  const result = scaled(text, scale) - scaled(lagText, scale);
  return unscale(result, scale);
}

function fractionLength(text: string): number {
  const dot = text.indexOf('.');
  return dot === -1 ? 0 : text.length - dot - 1;
}

function scaled(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const [int = '0', fraction = ''] = text.replace(/^[+-]/, '').split('.');
  const digits = BigInt(int + fraction.padEnd(scale, '0'));
  return negative ? -digits : digits;
}

function unscale(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${int}${scale > 0 ? `.${fraction}` : ''}`;
}

function lowerTimestamp(m: RegExpExecArray, lag: number): string {
  const [, y, mo, d, sep = 'T', h, mi, s, fraction = '', zone = ''] = m;
  // Wall-clock arithmetic in microseconds; the zone suffix is kept as written.
  const baseMs = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const micros = BigInt(baseMs) * 1000n + BigInt(fraction.slice(0, 6).padEnd(6, '0')) - BigInt(Math.round(lag * 1e6));
  const wholeMs = micros >= 0n ? micros / 1000n : (micros - 999n) / 1000n;
  const subMs = micros - wholeMs * 1000n;
  const iso = new Date(Number(wholeMs)).toISOString();
  const fractionDigits = `${iso.slice(20, 23)}${subMs.toString().padStart(3, '0')}`;
  const width = Math.max(fraction.length, /[1-9]/.test(fractionDigits.slice(fraction.length)) ? 6 : 0);
  const kept = fractionDigits.slice(0, Math.min(width, 6)) + (fraction.length > 6 ? fraction.slice(6) : '');
  return `${iso.slice(0, 10)}${sep}${iso.slice(11, 19)}${kept ? `.${kept}` : ''}${zone}`;
}
