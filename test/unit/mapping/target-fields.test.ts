import { describe, expect, it } from 'vitest';
import { checkTargetFields, coerceFieldValue, targetFieldNames } from '../../../src/mapping/index.js';

describe('checkTargetFields', () => {
  it('flags typos and fields ferry sets itself, per target kind', () => {
    expect(checkTargetFields('conversation', { id: 'id', dispayName: 'x', transcript: 't', sourceId: 's' })).toEqual([
      { path: ['dispayName'], message: expect.stringMatching(/^a conversation has no field "dispayName"; expected one of id, updatedAt/) },
      { path: ['sourceId'], message: 'sourceId is set by ferry; remove it from map' },
    ]);
    expect(checkTargetFields('row', { id: 'id', name: 'n', fields: {}, public: true })).toEqual([]);
    expect(checkTargetFields('message', { fields: {} })).toHaveLength(1);
    expect(targetFieldNames('document')).toContain('content');
  });
});

describe('coerceFieldValue', () => {
  it.each<[unknown, string, unknown]>([
    [' 42 ', 'int', 42],
    ['42.0', 'int', 42],
    ['-7', 'int', -7],
    ['1e3', 'double', 1000],
    ['.5', 'double', 0.5],
    ['YES', 'boolean', true],
    [' No ', 'boolean', false],
    [0, 'boolean', false],
    [1, 'boolean', true],
    [1488326400, 'date', '2017-03-01'],
    [new Date('2017-03-01T00:00:00Z'), 'date', '2017-03-01'],
    ['2017-03-01', 'datetime', '2017-03-01T00:00:00.000Z'],
    ['2017-03-01T10:00:00+02:00', 'datetime', '2017-03-01T08:00:00.000Z'],
    [true, 'string', 'true'],
    [3.5, 'textarea', '3.5'],
    [null, 'int', null],
  ])('%j as %s → %j', (value, type, expected) => {
    expect(coerceFieldValue(value, type as never)).toEqual({ ok: true, value: expected });
  });

  it.each<[unknown, string]>([
    [2, 'boolean'],
    [true, 'int'],
    ['Infinity', 'double'],
    [true, 'datetime'],
    [['a'], 'string'],
    ['["a"]', 'list'],
  ])('refuses %j as %s', (value, type) => {
    expect(coerceFieldValue(value, type as never)).toEqual({ ok: false });
  });
});
