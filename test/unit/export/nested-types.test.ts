/** The nested types an export derives from the spec's schemas, and which values fit them. */
import { describe, expect, it } from 'vitest';
import { fitsNested } from '../../../connectors/destinations/_export/columns.js';
import { nestedTypesOf } from '../../../src/export/nested-types.js';

const STRUCT = { naming: 'snake_case', metadata: true, nested: 'struct' } as const;

describe('nestedTypesOf', () => {
  it('gives lists of structs with snake_case element fields, structs with the service keys, free-form maps as json', () => {
    const types = nestedTypesOf('conversations', STRUCT)!;
    expect(types.transcript).toEqual({ list: { struct: { speaker: 'text', text: 'text', start_time: 'number', end_time: 'number' } } });
    expect(types.recordings).toEqual({ struct: { videoUrl: 'text', videoStreamUrl: 'text', audioUrl: 'text', audioStreamUrl: 'text' } });
    expect(types.summary).toBe('json');
    expect(types.title).toBeUndefined();
    expect(nestedTypesOf('messages', STRUCT)!.attachments).toEqual({ list: { struct: { id: 'text', filename: 'text', content_type: 'text', size: 'integer' } } });
    expect(nestedTypesOf('accounts', STRUCT)!.latest_deal).toEqual({ struct: { dealId: 'text', name: 'text', stage: 'text', amount: 'number', closeDate: 'text' } });
    expect(nestedTypesOf('rows', STRUCT)).toEqual({ fields: 'json' });
  });

  it('keeps the service names under naming: api, and gives nothing to a JSON layout', () => {
    expect(Object.keys(nestedTypesOf('accounts', { ...STRUCT, naming: 'api' })!)).toContain('latestDeal');
    expect(nestedTypesOf('conversations', { naming: 'snake_case', metadata: true, nested: 'json' })).toBeUndefined();
    expect(nestedTypesOf('conversations', { naming: 'snake_case', metadata: true })).toBeUndefined();
  });
});

describe('fitsNested', () => {
  const people = { list: { struct: { name: 'text', attended: 'boolean', size: 'integer' } } } as const;
  it('takes values of the shape, nulls anywhere', () => {
    expect(fitsNested([{ name: 'Ann', attended: true, size: 3 }, { name: null }], people)).toBe(true);
    expect(fitsNested(null, people)).toBe(true);
    expect(fitsNested([], people)).toBe(true);
  });
  it('refuses a key the type lacks, a number for text, a decimal for an integer, an object for a list', () => {
    expect(fitsNested([{ name: 'Ann', phone: '1' }], people)).toBe(false);
    expect(fitsNested([{ name: 5 }], people)).toBe(false);
    expect(fitsNested([{ size: 1.5 }], people)).toBe(false);
    expect(fitsNested({ name: 'Ann' }, people)).toBe(false);
  });
});
