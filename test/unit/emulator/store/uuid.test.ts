import { describe, expect, it } from 'vitest';
import { UUID_PATTERN } from '../../../../src/api/schemas/common.js';
import { newRecordId } from '../../../../src/emulator/store/uuid.js';

describe('newRecordId', () => {
  it('makes version 7 UUIDs whose first 48 bits are the creation time', () => {
    const at = Date.UTC(2026, 10, 29, 2, 30, 0, 123);
    const id = newRecordId(at);
    expect(id).toMatch(UUID_PATTERN);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it('sorts ids of later records after earlier ones, and never repeats within a millisecond', () => {
    const start = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 2000 }, (_, i) => newRecordId(start + Math.floor(i / 100)));
    for (let i = 100; i < ids.length; i += 100) expect(ids[i - 1]! < ids[i]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws fresh random bits for every id, past the pool of random bytes it fills at a time', () => {
    // Random bits come from a pool refilled every 256 ids: at one millisecond only they tell the ids apart.
    const ids = Array.from({ length: 1000 }, () => newRecordId(Date.UTC(2026, 0, 1)));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(19))).size).toBe(ids.length);
  });

  it('keeps the time in range when given one outside it', () => {
    expect(newRecordId(-5).slice(0, 13)).toBe('00000000-0000');
    expect(newRecordId(2 ** 50).slice(0, 13)).toBe('ffffffff-ffff');
    expect(newRecordId(Number.NaN)).toMatch(UUID_PATTERN);
  });
});
