import { describe, expect, it } from 'vitest';
import { toJsonSafe } from '../../../src/mapping/index.js';

describe('toJsonSafe', () => {
  it('returns plain records untouched, without copying', () => {
    const record = { a: 'x', b: [1, { c: null }] };
    expect(toJsonSafe(record)).toBe(record);
  });

  it('converts bigint, Date, bytes and non-finite numbers, and drops undefined members', () => {
    const out = toJsonSafe({
      safe: 9007199254740991n,
      unsafe: 9007199254740992n,
      negative: -12345678901234567890n,
      when: new Date('2020-06-02T00:13:07.005Z'),
      invalid: new Date('nope'),
      bytes: new Uint8Array([104, 105]),
      buffer: Buffer.from('hi'),
      nan: Number.NaN,
      gone: undefined,
      list: [1n, undefined, new Date(0)],
    });
    expect(out).toEqual({
      safe: 9007199254740991,
      unsafe: '9007199254740992',
      negative: '-12345678901234567890',
      when: '2020-06-02T00:13:07.005Z',
      invalid: null,
      bytes: 'aGk=',
      buffer: 'aGk=',
      nan: null,
      list: [1, null, '1970-01-01T00:00:00.000Z'],
    });
    expect(Object.keys(out as object)).not.toContain('gone');
  });

  it('keeps member order when copying', () => {
    expect(Object.keys(toJsonSafe({ a: 1, b: 2n, c: 3 }) as object)).toEqual(['a', 'b', 'c']);
  });

  it('encodes a byte view at its own offset', () => {
    const backing = Buffer.from('xxhiyy');
    expect(toJsonSafe(backing.subarray(2, 4))).toBe('aGk=');
  });
});
