import { describe, expect, it } from 'vitest';
import { epochToMillis, isIsoDate, isIsoDateTime, parseRequestTimestamp, parseTimestamp, toIsoTimestamp } from '../../../src/api/timestamp.js';
import { timestampInput } from '../../../src/api/schemas/common.js';
import { CALL } from './fixtures.js';
import { accepts, rejects } from './expect-schema.js';

describe('request timestamps', () => {
  // Harper Valley call 010d38f5ada54e0d started at 1590862374809 ms = 2020-05-30T18:12:54.809Z.
  const iso = '2020-05-30T18:12:54.809Z';

  it('reads Unix milliseconds, Unix seconds and ISO 8601 as the same instant', () => {
    expect(toIsoTimestamp(CALL.startMs)).toBe(iso);
    expect(toIsoTimestamp(CALL.startMs / 1000)).toBe(iso);
    expect(toIsoTimestamp(1590862374)).toBe('2020-05-30T18:12:54.000Z');
    expect(toIsoTimestamp(String(CALL.startMs))).toBe(iso);
    expect(toIsoTimestamp(iso)).toBe(iso);
    expect(toIsoTimestamp('2020-05-30T20:12:54.809+02:00')).toBe(iso);
    expect(toIsoTimestamp('2020-05-30 18:12:54.809')).toBe(iso);
    // An Enron Date header converted to ISO with its PDT offset.
    expect(toIsoTimestamp('2001-05-14T16:39:00-07:00')).toBe('2001-05-14T23:39:00.000Z');
    // CRM dates (YYYY-MM-DD) are midnight UTC.
    expect(toIsoTimestamp('2017-03-01')).toBe('2017-03-01T00:00:00.000Z');
  });

  it('decides seconds vs milliseconds at 2e10', () => {
    expect(epochToMillis(2e10)).toBe(2e13);
    expect(epochToMillis(2e10 + 1)).toBe(2e10 + 1);
  });

  it('rejects what is not a timestamp', () => {
    for (const bad of ['', '   ', 'yesterday', '2021-02-30', '2020-13-01', '2020-05-30T24:00:00Z', '30/05/2020', 'Mon, 14 May 2001 16:39:00 -0700', Number.NaN, Number.POSITIVE_INFINITY, 1e20, true, null, {}]) {
      expect(parseTimestamp(bad), String(bad)).toBeUndefined();
    }
  });

  it('normalises through the schema and names the bad value', () => {
    expect(accepts(timestampInput, CALL.startMs)).toBe(iso);
    rejects(timestampInput, 'yesterday', '', /ISO 8601 string .* or a number of Unix seconds or milliseconds .*; found "yesterday"/);
    rejects(timestampInput, true, '');
  });

  it('refuses a digit string in a request body: it is not ISO 8601, and the number itself is what to send', () => {
    rejects(timestampInput, String(CALL.startMs), '', /not a digit string/);
    rejects(timestampInput, '1590862374', '', /found "1590862374"/);
    expect(parseRequestTimestamp('1590862374')).toBeUndefined();
    expect(parseRequestTimestamp(1590862374)).toBe(1590862374000);
    expect(parseRequestTimestamp('2017-03-01')).toBe(Date.parse('2017-03-01T00:00:00Z'));
  });

  it('tells dates from date-times', () => {
    expect(isIsoDate('2016-10-20')).toBe(true);
    expect(isIsoDate('2016-10-20T00:00:00Z')).toBe(false);
    expect(isIsoDate('2016-02-30')).toBe(false);
    expect(isIsoDateTime('2016-10-20T10:00:00Z')).toBe(true);
    expect(isIsoDateTime('1590862374809')).toBe(false);
    // date and datetime are distinct field types: a date alone is not a date-time.
    expect(isIsoDateTime('2016-10-20')).toBe(false);
    expect(isIsoDateTime(1590862374809)).toBe(false);
  });
  it('knows calendar dates exactly as the Date-based reading does', () => {
    const viaDate = (y: number, m: number, d: number): boolean => {
      if (m < 1 || m > 12 || d < 1) return false;
      const check = new Date(Date.UTC(y, m - 1, d));
      return check.getUTCDate() === d && check.getUTCMonth() === m - 1;
    };
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    for (const y of [0, 4, 99, 100, 1900, 1904, 2000, 2023, 2024, 2100, 9999]) {
      for (let m = 0; m <= 13; m++) {
        for (let d = 0; d <= 32; d++) expect(isIsoDate(`${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`), `${y}-${m}-${d}`).toBe(viaDate(y, m, d));
      }
    }
  });
});
