import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { MappingEvaluationError, compileMapping } from '../../../src/mapping/index.js';
import type { CompiledMapping } from '../../../src/mapping/index.js';
import type { MapSpec } from '../../../src/config/schema.js';

function compile(spec: MapSpec, options?: { blankAsMissing?: boolean }): CompiledMapping {
  const result = compileMapping(spec, options);
  if ('errors' in result) throw new Error(JSON.stringify(result.errors));
  return result.mapping;
}

describe('compileMapping: fast path', () => {
  const inputs: unknown[] = [
    { a: 1 },
    { a: [5] },
    { a: [] },
    { a: [[1]] },
    { a: null },
    { a: 's' },
    { a: { b: 2 } },
    { a: { b: [1] } },
    { a: { b: null } },
    { a: { b: { c: [1, 2] } } },
    { a: [{ b: 1 }, { b: 2 }] },
    { a: [{ b: { c: 1 } }, { b: { c: 2 } }] },
    [{ a: 1 }, { a: 2 }],
    {},
    'text',
    null,
    { 'first and last name': 'Patricia Brown', 'close-value': '3' },
  ];
  const expressions = ['a', 'a.b', 'a.b.c', '`first and last name`', '`close-value`', 'constructor'];

  for (const source of expressions) {
    it(`"${source}" gives what JSONata gives`, async () => {
      const mapping = compile({ out: source }, { blankAsMissing: false });
      const reference = jsonata(source);
      for (const input of inputs) {
        const expected = await reference.evaluate(input);
        const actual = (await mapping.evaluate(input)).out;
        // Compare as JSON: JSONata's own arrays carry a `sequence` flag we strip.
        expect(JSON.stringify(actual), `${source} on ${JSON.stringify(input)}`).toBe(JSON.stringify(expected));
      }
    });
  }

  it('reads keywords and $-names through JSONata, not as fields', async () => {
    const mapping = compile({ t: 'true', n: 'null', d: '$' });
    const out = await mapping.evaluate({ true: 'field', null: 'field', $: 'field' });
    expect(out.t).toBe(true);
    expect(out.n).toBeNull();
    expect(out.d).toEqual({ true: 'field', null: 'field', $: 'field' });
  });

  it('treats a blank fast-path field as missing unless blankAsMissing is off', async () => {
    const record = { close_value: '', close_date: '' };
    expect(await compile({ v: 'close_value', s: '$string(close_date)' }).evaluate(record)).toEqual({ s: '' });
    expect(await compile({ v: 'close_value' }, { blankAsMissing: false }).evaluate(record)).toEqual({ v: '' });
  });
});

describe('compileMapping: spec shapes', () => {
  it('maps nested objects recursively, keeps literals, omits undefined and keeps null', async () => {
    const mapping = compile({
      id: '$string(id)',
      public: true,
      priority: 3,
      tags: ['a', 'b'],
      nothing: null,
      sender: { email: 'from_email', name: 'from_name', meta: { folder: 'folder' } },
      author: { email: 'missing_field' },
      missing: 'not_there',
      nullValue: 'n',
    });
    const out = await mapping.evaluate({ id: 7, from_email: 'a@b.co', from_name: 'A', folder: 'inbox', n: null });
    expect(out).toEqual({
      id: '7',
      public: true,
      priority: 3,
      tags: ['a', 'b'],
      nothing: null,
      sender: { email: 'a@b.co', name: 'A', meta: { folder: 'inbox' } },
      nullValue: null,
    });
    expect('author' in out).toBe(false);
    expect('missing' in out).toBe(false);
  });

  it('hands out a fresh copy of literal lists each time', async () => {
    const mapping = compile({ tags: ['a'] });
    const first = await mapping.evaluate({});
    (first.tags as string[]).push('mutated');
    expect((await mapping.evaluate({})).tags).toEqual(['a']);
  });

  it('returns plain arrays and objects, without JSONata internals', async () => {
    const mapping = compile({ list: 'items.name', obj: '{"n": items.name}' });
    const out = await mapping.evaluate({ items: [{ name: 'x' }, { name: 'y' }] });
    expect(out.list).toEqual(['x', 'y']);
    expect(Object.keys(out.list as object)).toEqual(['0', '1']);
    expect(Object.getPrototypeOf(out.obj)).toBe(Object.prototype);
    expect(Object.keys((out.obj as { n: object }).n)).toEqual(['0', '1']);
  });

  it('converts bigint, Date and bytes before evaluation', async () => {
    const mapping = compile({ small: 'small', big: 'big', when: 'when', bytes: 'bytes', nested: 'nested.at' });
    const out = await mapping.evaluate({
      small: 42n,
      big: 12345678901234567890n,
      when: new Date('2020-06-02T00:13:07.005Z'),
      bytes: Buffer.from('héllo', 'utf8'),
      nested: { at: new Date(0) },
    });
    expect(out).toEqual({
      small: 42,
      big: '12345678901234567890',
      when: '2020-06-02T00:13:07.005Z',
      bytes: Buffer.from('héllo', 'utf8').toString('base64'),
      nested: '1970-01-01T00:00:00.000Z',
    });
  });

  it('lets JSONata work on converted values', async () => {
    const out = await compile({ year: '$substring(when, 0, 4)' }).evaluate({ when: new Date('2017-03-01T00:00:00Z') });
    expect(out.year).toBe('2017');
  });

  it('encodes UTF-8 correctly in $base64encode (JSONata\'s own goes through Latin-1)', async () => {
    const out = await compile({ c: '$base64encode(text)', back: '$base64decode($base64encode(text))' }).evaluate({ text: 'It’s — done' });
    expect(Buffer.from(out.c as string, 'base64').toString('utf8')).toBe('It’s — done');
    expect(out.back).toBe('It’s — done');
  });

  it('lists top-level and row field names', () => {
    const mapping = compile({ id: 'id', name: 'title', fields: { amount: 'amount', stage: 'stage' } });
    expect(mapping.fieldNames()).toEqual(['id', 'name', 'fields']);
    expect(mapping.rowFieldNames()).toEqual(['amount', 'stage']);
    expect(compile({ fields: '$' }).rowFieldNames()).toEqual([]);
  });
});

describe('compileMapping: errors', () => {
  it('reports every syntax error at once, with its path under map', () => {
    const result = compileMapping({
      id: 'id',
      name: 'a +',
      fields: { amount: '$string(', ok: 'amount', deeper: { x: '"unterminated' } },
      empty: '  ',
    });
    expect('errors' in result).toBe(true);
    if (!('errors' in result)) return;
    expect(result.errors.map((e) => e.path)).toEqual([['name'], ['fields', 'amount'], ['fields', 'deeper', 'x'], ['empty']]);
    expect(result.errors[0]?.message).toMatch(/S0207.*position 3.*"a \+"/);
    expect(result.errors[3]?.message).toBe('empty expression');
  });

  it('reports evaluation errors per record with the map path of each failing expression', async () => {
    const mapping = compile({ id: 'id', fields: { amount: 'amount + 1', n: '$number(n)' }, ok: 'id' });
    await expect(mapping.evaluate({ id: 'x', amount: 1, n: '2' })).resolves.toEqual({ id: 'x', fields: { amount: 2, n: 2 }, ok: 'x' });
    const error = await mapping.evaluate({ id: 'x', amount: 'abc', n: 'zz' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MappingEvaluationError);
    const e = error as MappingEvaluationError;
    expect(e.code).toBe('FERRY_RECORD_INVALID');
    expect(e.path).toEqual(['fields', 'amount']);
    expect(e.issues.map((i) => i.path)).toEqual([['fields', 'amount'], ['fields', 'n']]);
    expect(e.message).toMatch(/^map\.fields\.amount: T2001 .*"\+" operator.*; map\.fields\.n: D3030 Unable to cast value to a number: "zz"/);
  });

  it('refuses an expression that yields a function', async () => {
    const mapping = compile({ f: 'function($x){ $x }' });
    await expect(mapping.evaluate({})).rejects.toThrow('map.f: the expression yields a function, not a value');
  });
});

describe('fieldPath', async () => {
  const { fieldPath } = await import('../../../src/mapping/expression.js');
  it('recognises plain and backticked paths only', () => {
    expect(fieldPath('amount')).toEqual(['amount']);
    expect(fieldPath(' a.b_2.c ')).toEqual(['a', 'b_2', 'c']);
    expect(fieldPath('`first and last name`')).toEqual(['first and last name']);
    expect(fieldPath('caller.metadata.`first and last name`')).toEqual(['caller', 'metadata', 'first and last name']);
    expect(fieldPath('`a.b`.c')).toEqual(['a.b', 'c']);
    for (const source of ['a + 1', '$string(id)', '$x', 'true', 'a.null', 'a[0]', 'a.', '`open', 'a b', '"lit"', '2']) {
      expect(fieldPath(source), source).toBeUndefined();
    }
  });
});
