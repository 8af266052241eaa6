import { describe, expect, it } from 'vitest';
import { compareCursorPositions, compareCursorValues } from '../../../src/sdk/cursor.js';

describe('compareCursorValues', () => {
  it('compares numeric text exactly, beyond float precision', () => {
    expect(compareCursorValues('9007199254740993', '9007199254740992')).toBe(1);
    expect(compareCursorValues('12345678901234567890.123', '12345678901234567890.1229')).toBe(1);
    expect(compareCursorValues('-5', '3')).toBe(-1);
    expect(compareCursorValues('010', '9')).toBe(1);
    expect(compareCursorValues(2, '2.0')).toBe(0);
  });

  it('compares timestamps as instants, keeping microseconds and zones', () => {
    expect(compareCursorValues('2024-03-01 12:00:00.123456+02', '2024-03-01T10:00:00.123455Z')).toBe(1);
    expect(compareCursorValues('2024-03-01T12:00:00+02:00', '2024-03-01T10:00:00Z')).toBe(0);
    expect(compareCursorValues('2017-03-01', '2017-02-28')).toBe(1);
  });

  it('falls back to text order', () => {
    expect(compareCursorValues('b', 'a')).toBe(1);
  });

  it('breaks ties on the key', () => {
    expect(compareCursorPositions({ value: '5', key: 'a' }, { value: '5', key: 'b' })).toBe(-1);
    expect(compareCursorPositions({ value: '6', key: 'a' }, { value: '5', key: 'b' })).toBe(1);
  });
});
