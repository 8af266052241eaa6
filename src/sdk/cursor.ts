import type { CursorPosition } from './types.js';

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\s*(?:Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

function compareDecimalStrings(a: string, b: string): number {
  // Exact comparison of decimal text of any length, so numerics and bigints
  // stored as strings never lose precision through a float.
  const sign = (s: string) => (s.startsWith('-') ? -1 : 1);
  const sa = sign(a);
  const sb = sign(b);
  const abs = (s: string) => s.replace(/^[+-]/, '');
  const [ia = '0', fa = ''] = abs(a).split('.');
  const [ib = '0', fb = ''] = abs(b).split('.');
  const intA = ia.replace(/^0+(?=\d)/, '');
  const intB = ib.replace(/^0+(?=\d)/, '');
  const zeroA = /^0*$/.test(intA + fa);
  const zeroB = /^0*$/.test(intB + fb);
  if (zeroA && zeroB) return 0;
  if (sa !== sb) return zeroA ? -sb : zeroB ? sa : sa;
  let magnitude = intA.length - intB.length;
  if (magnitude === 0) magnitude = intA < intB ? -1 : intA > intB ? 1 : 0;
  if (magnitude === 0) {
    const width = Math.max(fa.length, fb.length);
    const pa = fa.padEnd(width, '0');
    const pb = fb.padEnd(width, '0');
    magnitude = pa < pb ? -1 : pa > pb ? 1 : 0;
  }
  return Math.sign(magnitude) * sa;
}

/** Sub-millisecond digits are kept so `…12.123456` sorts after `…12.123455`. */
function timestampKey(text: string): [number, string] | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2}))?(?:\.(\d+))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text.trim());
  if (!m) return undefined;
  const [, date, hm = '00:00', sec = '00', fraction = '', zone = 'Z'] = m;
  const offset = /^[Zz]$/.test(zone) ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(3).replace(':', '').padEnd(2, '0')}`;
  const ms = Date.parse(`${date}T${hm}:${sec}.${fraction.slice(0, 3).padEnd(3, '0')}${offset}`);
  if (Number.isNaN(ms)) return undefined;
  return [ms, fraction.slice(3).padEnd(9, '0')];
}

/**
 * Order two cursor values: numerically when both are numbers or numeric text
 * (exactly, at any precision), by instant when both are timestamps (time zones
 * honoured, microseconds kept), otherwise as text.
 */
export function compareCursorValues(a: string | number, b: string | number): number {
  const ta = typeof a === 'number' ? String(a) : a;
  const tb = typeof b === 'number' ? String(b) : b;
  if (NUMERIC.test(ta) && NUMERIC.test(tb)) {
    if (/[eE]/.test(ta + tb)) return Math.sign(Number(ta) - Number(tb));
    return compareDecimalStrings(ta, tb);
  }
  if (TIMESTAMP.test(ta) && TIMESTAMP.test(tb)) {
    const ka = timestampKey(ta);
    const kb = timestampKey(tb);
    if (ka && kb) {
      if (ka[0] !== kb[0]) return ka[0] < kb[0] ? -1 : 1;
      return ka[1] < kb[1] ? -1 : ka[1] > kb[1] ? 1 : 0;
    }
  }
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}

/** Order two cursor positions by value, then by tie-breaking key. */
export function compareCursorPositions(a: CursorPosition, b: CursorPosition): number {
  const byValue = compareCursorValues(a.value, b.value);
  if (byValue !== 0) return byValue;
  const ka = a.key ?? '';
  const kb = b.key ?? '';
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
