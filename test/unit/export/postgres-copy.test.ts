/** COPY text encoding of postgres-table: what Postgres reads back must be what the record held. */
import { describe, expect, it } from 'vitest';
import { copyLine, copyValue } from '../../../connectors/destinations/postgres-table/copy.js';

describe('COPY text encoding', () => {
  it('escapes the characters COPY gives meaning to and writes null as \\N', () => {
    expect(copyLine(['a\tb', 'line1\nline2\r', 'back\\slash', null, ''])).toBe('a\\tb\tline1\\nline2\\r\tback\\\\slash\t\\N\t\n');
  });

  it('encodes values for the column type', () => {
    expect(copyValue(true, 'boolean')).toBe('t');
    expect(copyValue(false, 'boolean')).toBe('f');
    expect(copyValue(true, 'text')).toBe('true');
    expect(copyValue(12.5, 'numeric')).toBe('12.5');
    expect(copyValue(Number.NaN, 'numeric')).toBeNull();
    expect(copyValue({ a: [1] }, 'jsonb')).toBe('{"a":[1]}');
    expect(copyValue('plain', 'jsonb')).toBe('"plain"');
    expect(copyValue({ a: 1 }, 'text')).toBe('{"a":1}');
    expect(copyValue(undefined, 'text')).toBeNull();
  });
});
