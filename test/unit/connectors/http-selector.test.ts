import { describe, expect, it } from 'vitest';
import { fieldValue, parseSelector, selectAll, selectFirst, selectRecords } from '../../../connectors/sources/http/selector.js';

const body = {
  data: { items: [{ id: 1 }, { id: 2 }], total: 2 },
  results: [{ id: 'a', tags: ['x', 'y'] }, { id: 'b', tags: [] }],
  'odd key': { 'with.dot': 5, "it's": 6 },
  meta: { next_cursor: 'c2', has_more: false },
};

describe('http selector parsing', () => {
  it('accepts $-rooted, bare and bracketed forms', () => {
    expect(parseSelector('$').segments).toEqual([]);
    expect(parseSelector('$.data.items').segments).toEqual([{ kind: 'key', name: 'data' }, { kind: 'key', name: 'items' }]);
    expect(parseSelector('data.items').segments).toEqual(parseSelector('$.data.items').segments);
    expect(parseSelector("$['odd key'][\"with.dot\"]").segments).toEqual([{ kind: 'key', name: 'odd key' }, { kind: 'key', name: 'with.dot' }]);
    expect(parseSelector('$.results[*].tags[-1]').segments).toEqual([
      { kind: 'key', name: 'results' },
      { kind: 'wildcard' },
      { kind: 'key', name: 'tags' },
      { kind: 'index', index: -1 },
    ]);
    expect(parseSelector('[0]').segments).toEqual([{ kind: 'index', index: 0 }]);
    expect(parseSelector("$['it\\'s']").segments).toEqual([{ kind: 'key', name: "it's" }]);
  });

  it('rejects what the subset does not support, saying where', () => {
    expect(() => parseSelector('$..id')).toThrow(/recursive descent ".." \(position 1\)/);
    expect(() => parseSelector('$.items[?(@.id>1)]')).toThrow(/unsupported bracket at position 7/);
    expect(() => parseSelector('$.a b')).toThrow(/unexpected " "/);
    expect(() => parseSelector('$.')).toThrow(/key name after "."/);
  });
});

describe('http selector evaluation', () => {
  it('walks keys, indexes and wildcards', () => {
    expect(selectAll(parseSelector('$.data.items[*].id'), body)).toEqual([1, 2]);
    expect(selectFirst(parseSelector('meta.next_cursor'), body)).toBe('c2');
    expect(selectFirst(parseSelector('$.meta.has_more'), body)).toBe(false);
    expect(selectFirst(parseSelector("$['odd key']['with.dot']"), body)).toBe(5);
    expect(selectAll(parseSelector('$.results[*].tags[*]'), body)).toEqual(['x', 'y']);
    expect(selectFirst(parseSelector('$.results[-1].id'), body)).toBe('b');
    expect(selectAll(parseSelector('$.meta.*'), body)).toEqual(['c2', false]);
  });

  it('matches nothing on missing keys, wrong types and inherited properties', () => {
    expect(selectAll(parseSelector('$.nope.deeper'), body)).toEqual([]);
    expect(selectAll(parseSelector('$.data.total[0]'), body)).toEqual([]);
    expect(selectAll(parseSelector('$.data.constructor'), body)).toEqual([]);
    expect(selectAll(parseSelector('$.data.items[5]'), body)).toEqual([]);
  });

  it('turns a match into records: array elements, one object, or each fanned-out match', () => {
    expect(selectRecords(parseSelector('$.data.items'), body)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(selectRecords(parseSelector('$.meta'), body)).toEqual([body.meta]);
    expect(selectRecords(parseSelector('$'), [1, 2])).toEqual([1, 2]);
    expect(selectRecords(parseSelector('$.results[*].tags'), body)).toEqual([['x', 'y'], []]);
    expect(selectRecords(parseSelector('$.missing'), body)).toEqual([]);
    expect(selectRecords(parseSelector('$'), null)).toEqual([]);
  });

  it('reads record fields literally first, then as dot paths', () => {
    const record = { 'a.b': 1, a: { b: 2, c: 3 } };
    expect(fieldValue(record, 'a.b')).toBe(1);
    expect(fieldValue(record, 'a.c')).toBe(3);
    expect(fieldValue(record, 'x.y')).toBeUndefined();
    expect(fieldValue(record, '..')).toBeUndefined();
  });
});
