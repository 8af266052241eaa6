/**
 * Timestamps as mapped values arrive: Date objects, Unix seconds or
 * milliseconds (numbers or digit strings), ISO 8601 text, and e-mail dates
 * (RFC 5322, `Mon, 14 May 2001 16:39:00 -0700 (PDT)`), which every mailbox
 * source yields and which always carry their zone, so reading them is not a guess.
 */
import { toIsoTimestamp } from '../api/timestamp.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const ZONES: Record<string, number> = { ut: 0, gmt: 0, z: 0, est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420 };
const RFC5322 =
  /^(?:[A-Za-z]{3},\s*)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s+([+-]\d{4}|[A-Za-z]{1,3})(?:\s*\([^)]*\))?$/;

function parseRfc5322(text: string): number | undefined {
  const m = RFC5322.exec(text.trim());
  if (!m) return undefined;
  const [, d, mon, y, h, mi, s = '0', zone = ''] = m;
  const month = MONTHS.indexOf((mon ?? '').toLowerCase());
  let offset: number | undefined;
  if (/^[+-]\d{4}$/.test(zone)) {
    const sign = zone.startsWith('-') ? -1 : 1;
    offset = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
  } else {
    offset = ZONES[zone.toLowerCase()];
  }
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 0 || offset === undefined || hour > 23 || minute > 59 || second > 60) return undefined;
  const local = Date.UTC(Number(y), month, day, hour, minute, second);
  if (new Date(local).getUTCDate() !== day) return undefined;
  return local - offset * 60_000;
}

/** An ISO 8601 UTC string for a mapped timestamp, or `undefined` when it is not one. */
export function normaliseTimestamp(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  const iso = toIsoTimestamp(value);
  if (iso !== undefined || typeof value !== 'string') return iso;
  const ms = parseRfc5322(value);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}
