import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprint } from '../../../src/mapping/index.js';

describe('fingerprint', () => {
  const body = { id: 'D1', fields: { amount: { value: 1054, fieldType: 'int' }, stage: { value: 'Won', fieldType: 'string' } }, ownerEmails: ['a@b.co', 'c@d.co'] };

  it('is a sha256 hex digest that ignores key order at every level', () => {
    const reordered = { ownerEmails: ['a@b.co', 'c@d.co'], fields: { stage: { fieldType: 'string', value: 'Won' }, amount: { fieldType: 'int', value: 1054 } }, id: 'D1' };
    expect(fingerprint(body)).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint(reordered)).toBe(fingerprint(body));
  });

  it('changes with any value, type or array order', () => {
    const base = fingerprint(body);
    const variants = [
      { ...body, id: 'D2' },
      { ...body, fields: { ...body.fields, amount: { value: 1055, fieldType: 'int' } } },
      { ...body, fields: { ...body.fields, amount: { value: '1054', fieldType: 'int' } } },
      { ...body, ownerEmails: ['c@d.co', 'a@b.co'] },
      { ...body, extra: null },
    ];
    for (const variant of variants) expect(fingerprint(variant)).not.toBe(base);
  });

  it('drops undefined members the way JSON does', () => {
    expect(fingerprint({ ...body, gone: undefined })).toBe(fingerprint(body));
    expect(canonicalJson({ b: [1, undefined], a: 'x' })).toBe('{"a":"x","b":[1,null]}');
  });
});
