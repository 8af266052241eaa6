import { describe, expect, it } from 'vitest';
import { csvField, csvLine } from '../../../connectors/destinations/_export/csv.js';
import { flattenRecord } from '../../../connectors/destinations/_export/flatten.js';
import { csvRows, jsonLines } from '../../../connectors/destinations/file/encode.js';
import { formatOf } from '../../../connectors/destinations/file/options.js';

describe('flattenRecord', () => {
  it('turns nested objects into dot keys and arrays into JSON text', () => {
    const flat = flattenRecord({
      dealId: 'd1',
      owner: { name: 'Ann', email: null },
      amount: 12.5,
      closed: false,
      contacts: [{ name: 'Bo' }],
      fields: { stage: { value: 'Won', fieldType: 'string' } },
      summary: {},
      missing: undefined,
    });
    expect(flat).toEqual({
      dealId: 'd1',
      'owner.name': 'Ann',
      'owner.email': null,
      amount: 12.5,
      closed: false,
      contacts: '[{"name":"Bo"}]',
      'fields.stage.value': 'Won',
      'fields.stage.fieldType': 'string',
      summary: null,
      missing: null,
    });
  });
});

describe('CSV encoding', () => {
  it('quotes only what needs quoting and doubles quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(' padded')).toBe('" padded"');
    expect(csvField(null)).toBe('');
    expect(csvField(0)).toBe('0');
    expect(csvField(true)).toBe('true');
    expect(csvLine(['a', null, 3])).toBe('a,,3\n');
  });

  it('takes the header from the first batch and reports keys outside it', () => {
    const first = csvRows([{ id: 1, owner: { name: 'A' } }, { id: 2, extra: 'x' }], undefined, true);
    expect(first.columns).toEqual(['id', 'owner.name', 'extra']);
    expect(first.text).toBe('id,owner.name,extra\n1,A,\n2,,x\n');
    const second = csvRows([{ id: 3, late: 'y' }], first.columns, false);
    expect(second.text).toBe('3,,\n');
    expect(second.dropped).toEqual(['late']);
  });

  it('writes exactly the listed columns, in order', () => {
    const rows = csvRows([{ id: 1, owner: { email: 'a@x.io', name: 'A' } }], ['owner.email', 'id'], true);
    expect(rows.text).toBe('owner.email,id\na@x.io,1\n');
  });

  it('writes one JSON object per line, nested values kept', () => {
    expect(jsonLines([{ a: { b: [1] } }, { a: null }])).toBe('{"a":{"b":[1]}}\n{"a":null}\n');
  });

  it('infers the format from the file name', () => {
    expect(formatOf({ path: 'x/deals.csv' })).toBe('csv');
    expect(formatOf({ path: 'deals.CSV.gz' })).toBe('csv');
    expect(formatOf({ path: 'deals.jsonl.gz' })).toBe('jsonl');
    expect(formatOf({ path: 'deals.csv', format: 'jsonl' })).toBe('jsonl');
  });
});
