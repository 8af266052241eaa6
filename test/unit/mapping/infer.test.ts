import { describe, expect, it } from 'vitest';
import { FieldTypeSampler, inferFieldType } from '../../../src/mapping/index.js';

describe('inferFieldType', () => {
  it.each<[unknown[], string]>([
    [[1, 2, '3', -4], 'int'],
    [[1, 2.5, '3'], 'double'],
    [['1.5', '2'], 'double'],
    [['1e3'], 'double'],
    [[true, 'false', 'TRUE'], 'boolean'],
    [['2017-03-01', '2016-10-20'], 'date'],
    [['2017-03-01', '2017-03-01T10:00:00Z'], 'datetime'],
    [[new Date(0)], 'datetime'],
    [['2020-06-02T00:13:07.005Z'], 'datetime'],
    [[['a'], []], 'list'],
    [['x'.repeat(256)], 'textarea'],
    [['line one\nline two', 'short'], 'textarea'],
    [['Won', 'Lost'], 'string'],
    [['00123', '42'], 'string'],
    [['9007199254740993'], 'string'],
    [[1, 'x'], 'string'],
    [['2017-02-30'], 'string'],
    [[{ a: 1 }], 'string'],
    [[true, 1], 'string'],
    [['1', '0'], 'int'],
    [[], 'string'],
    [[null, undefined, '', '  '], 'string'],
    [['', null, '1054', ''], 'int'],
  ])('%j → %s', (values, expected) => {
    expect(inferFieldType(values)).toBe(expected);
  });

  it('reads bigints as int only when they fit a safe integer', () => {
    expect(inferFieldType([42n, 7])).toBe('int');
    expect(inferFieldType([12345678901234567890n])).toBe('string');
  });

  it('lets a discover() hint win', () => {
    expect(inferFieldType(['1', '2'], 'string')).toBe('string');
  });
});

describe('FieldTypeSampler', () => {
  it('types each field from its observed values, hints first, in first-seen order', () => {
    const sampler = new FieldTypeSampler();
    const rows = [
      { amount: '10', closed: '2017-03-01', code: '007', stage: 'Won' },
      { amount: '12.5', closed: '', code: '008', stage: 'Lost' },
      { amount: '', closed: '2017-04-01', code: '009', stage: 'Won' },
    ];
    for (const row of rows) for (const [field, value] of Object.entries(row)) sampler.observe(field, value);
    expect([...sampler.types()]).toEqual([
      ['amount', 'double'],
      ['closed', 'date'],
      ['code', 'string'],
      ['stage', 'string'],
    ]);
    expect(sampler.types(new Map([['amount', 'string'], ['unseen', 'int']])).get('amount')).toBe('string');
    expect(sampler.types(new Map([['unseen', 'int']])).has('unseen')).toBe(false);
  });
});
