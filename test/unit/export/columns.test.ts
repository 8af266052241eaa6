/** Column kinds of table destinations: timestamps, null-only columns, widening. */
import { describe, expect, it } from 'vitest';
import { inferColumns, widenings } from '../../../connectors/destinations/_export/columns.js';

describe('inferColumns', () => {
  const rows = [
    { id: 'a', at: '2024-03-01T09:00:00.000Z', day: '2024-03-01', n: 1, none: null, owner: { name: 'Ann' } },
    { id: 'b', at: '2024-03-01T09:00:00+02:00', day: '2024-03-02', n: 2.5, none: null, owner: null },
  ];

  it('reads ISO instants with a zone as timestamps only when asked; dates stay text', () => {
    expect(Object.fromEntries(inferColumns(rows, { timestamps: true }))).toEqual({ id: 'text', at: 'timestamp', day: 'text', n: 'number', none: 'text', owner: 'json' });
    expect(inferColumns(rows).get('at')).toBe('text');
  });

  it('leaves out columns holding only nulls when asked', () => {
    expect([...inferColumns(rows, { omitNullColumns: true }).keys()]).toEqual(['id', 'at', 'day', 'n', 'owner']);
  });

  it('mixed kinds become text, and text stays text', () => {
    expect(inferColumns([{ v: 1 }, { v: 'x' }, { v: true }]).get('v')).toBe('text');
    expect(inferColumns([{ v: { a: 1 } }, { v: 'x' }]).get('v')).toBe('text');
  });
});

describe('widenings', () => {
  const stored = (kinds: Record<string, 'integer' | 'number' | 'text' | 'json'>) => (column: string) => kinds[column];

  it('names the columns whose stored kind cannot hold the batch, and how they widen', () => {
    const kinds = inferColumns([{ a: 1.5, b: 'x', c: 2, d: 'y' }]);
    expect(widenings(kinds, stored({ a: 'integer', b: 'number', c: 'number', d: 'text' }), [{ a: 1.5, b: 'x', c: 2, d: 'y' }])).toEqual([
      { column: 'a', from: 'integer', to: 'number' },
      { column: 'b', from: 'number', to: 'text' },
    ]);
  });

  it('ignores columns ferry did not type and columns that hold only nulls in the batch', () => {
    const kinds = new Map([['a', 'text' as const], ['b', 'text' as const]]);
    expect(widenings(kinds, stored({ b: 'number' }), [{ a: 'x', b: null }])).toEqual([]);
  });
});
