import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { fastCheckOf } from '../../../../../src/api/schemas/fast/fast-check.js';
import { deletedRecordResponse, recordResponse } from '../../../../../src/api/schemas/read.js';

describe('fastCheckOf', () => {
  const good = { status: 'created', recordId: 'r1', id: 'D1', sourceId: 's1' };
  const values: unknown[] = [
    good,
    { ...good, status: 'updated', extra: { kept: true } },
    { ...good, status: 'deleted' },
    { ...good, recordId: 7 },
    { ...good, id: null },
    { status: 'created', recordId: 'r1', id: 'D1' },
    [],
    null,
    'text',
    undefined,
  ];

  it('passes exactly what the record answer schema accepts, and then the value is what the parse returns', () => {
    const check = fastCheckOf(recordResponse)!;
    expect(check).toBeTypeOf('function');
    for (const value of values) {
      const parsed = recordResponse.safeParse(value);
      expect(check(value), JSON.stringify(value)).toBe(parsed.success);
      if (parsed.success) expect(parsed.data).toEqual(value);
    }
  });

  it('derives no check for schemas beyond loose objects of plain strings, enums and literals', () => {
    const deleted = fastCheckOf(deletedRecordResponse)!;
    expect(deleted({ ...good, status: 'deleted', deletedAt: 'x' })).toBe(true);
    expect(deleted(good)).toBe(false);
    expect(fastCheckOf(z.object({ id: z.string() }))).toBeUndefined(); // strict about other keys: not the same output
    expect(fastCheckOf(z.looseObject({ id: z.string().min(1) }))).toBeUndefined();
    expect(fastCheckOf(z.looseObject({ n: z.number() }))).toBeUndefined();
    expect(fastCheckOf(z.looseObject({ id: z.string().optional() }))).toBeUndefined();
  });
});
