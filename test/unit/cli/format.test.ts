import { describe, expect, it } from 'vitest';
import {
  formatAge,
  formatCount,
  formatCursor,
  formatDuration,
  formatTable,
  formatTimestamp,
  plural,
  truncate,
} from '../../../src/cli/format.js';

describe('formatTable', () => {
  it('aligns columns by visible width and right-aligns numbers', () => {
    const text = formatTable(
      [{ header: 'SYNC' }, { header: 'READ', align: 'right' }, { header: 'CURSOR' }],
      [
        ['deals', '1,204', '2017-03-01'],
        ['e-mails ✓', '7', '-'],
      ],
    );
    expect(text.split('\n')).toEqual([
      'SYNC        READ  CURSOR',
      'deals      1,204  2017-03-01',
      'e-mails ✓      7  -',
    ]);
  });

  it('leaves no trailing spaces and tolerates short rows', () => {
    const text = formatTable([{ header: 'A' }, { header: 'LONG HEADER' }], [['x']]);
    for (const line of text.split('\n')) expect(line).toBe(line.trimEnd());
    expect(text).toBe('A  LONG HEADER\nx');
  });
});

describe('formatDuration', () => {
  it.each([
    [null, '-'],
    [-1, '-'],
    [0, '0 ms'],
    [849.6, '850 ms'],
    [1234, '1.2 s'],
    [12_345, '12 s'],
    [60_000, '1m 00s'],
    [245_000, '4m 05s'],
    [3_600_000, '1h 00m'],
    [3_720_000 + 29_000, '1h 02m'],
  ])('%s → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1,000'],
    [1_234_567, '1,234,567'],
    [-4500, '-4,500'],
    [1234.5, '1,234.5'],
    [undefined, '-'],
  ])('%s → %s', (n, text) => {
    expect(formatCount(n)).toBe(text);
  });
});

describe('formatAge', () => {
  const now = Date.parse('2025-03-01T12:00:00Z');
  it.each([
    ['2025-03-01T12:00:00Z', 'just now'],
    ['2025-03-01T11:59:18Z', '42 s ago'],
    ['2025-03-01T11:55:00Z', '5 min ago'],
    ['2025-03-01T09:00:00Z', '3 h ago'],
    ['2025-02-17T12:00:00Z', '12 days ago'],
    ['2025-03-02T12:00:00Z', 'in the future'],
    ['not a date', 'not a date'],
    [null, '-'],
  ])('%s → %s', (iso, text) => {
    expect(formatAge(iso, now)).toBe(text);
  });
});

describe('formatTimestamp', () => {
  it('prints UTC to the second', () => {
    expect(formatTimestamp('2025-03-01T14:05:09.123+02:00')).toBe('2025-03-01 12:05:09Z');
    expect(formatTimestamp(null)).toBe('-');
  });
});

describe('formatCursor', () => {
  it('keeps full precision and shows the tie-breaking key', () => {
    expect(formatCursor({ value: '2024-05-01T10:00:00.123456+02:00' })).toBe('2024-05-01T10:00:00.123456+02:00');
    expect(formatCursor({ value: 12345678901234, key: 'A-7' })).toBe('12345678901234 (key A-7)');
    expect(formatCursor(undefined)).toBe('-');
  });
});

describe('truncate and plural', () => {
  it('cuts long text with an ellipsis and flattens newlines', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
    expect(truncate('line one\n  line two', 100)).toBe('line one line two');
  });

  it('picks the singular for exactly one', () => {
    expect(plural(1, 'failure')).toBe('1 failure');
    expect(plural(1200, 'failure')).toBe('1,200 failures');
    expect(plural(0, 'entry', 'entries')).toBe('0 entries');
  });
});
