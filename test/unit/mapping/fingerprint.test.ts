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

  it('keeps its exact text, so fingerprints stored by earlier runs still match', () => {
    const value = { z: [1, 'two', null, undefined, () => 1, { b: 2, a: [] }], 'k"ey': 'quote " and \u2028', d: new Date(Date.UTC(2024, 0, 2)), n: 10n, e: {}, f: () => 1, u: undefined, t: true, x: 1.5e-7 };
    expect(canonicalJson(value)).toBe('{"d":"2024-01-02T00:00:00.000Z","e":{},"k\\"ey":"quote \\" and \u2028","n":"10","t":true,"x":1.5e-7,"z":[1,"two",null,null,null,{"a":[],"b":2}]}');
    expect(fingerprint(body)).toBe('ce9e492a9d77bfbe6dffbb0c0d8db821feb364b0ac804031f1c78ff1a6a74177');
  });
  it('orders keys exactly as Array.prototype.sort does, for small objects and large', () => {
    const names = ['b', 'a', 'B', '_x', 'é', 'z1', 'z10', 'z9', '10', '9', 'ä', '', 'aa', 'a a', '😀', '\u00ff', 'Z'];
    const reference = (value: Record<string, number>): string =>
      `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${value[key]}`).join(',')}}`;
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let n = 0; n < 200; n++) {
      const record: Record<string, number> = {};
      const size = 1 + Math.floor(random() * 40);
      for (let i = 0; i < size; i++) record[`${names[Math.floor(random() * names.length)]}${i % 3 === 0 ? i : ''}`] = i;
      expect(canonicalJson(record)).toBe(reference(record));
    }
  });
});
