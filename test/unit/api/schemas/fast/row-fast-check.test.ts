import { describe, expect, it } from 'vitest';
import { isPlainValidRow } from '../../../../../src/api/schemas/fast/row-fast-check.js';
import { rowRequest } from '../../../../../src/api/schemas/write.js';
import { canonicalJson } from '../../../../../src/mapping/fingerprint.js';

const SOURCE = '6f1d3c0e-8a4b-4c3d-9e2f-0a1b2c3d4e5f';
const TYPE = '0b6a3b0e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

function base(): Record<string, unknown> {
  return {
    id: 'KWVA7VR1',
    sourceId: SOURCE,
    objectTypeId: TYPE,
    public: true,
    name: 'Acme - GTX Pro',
    fields: {
      agent: { value: 'Moses Frase', fieldType: 'string' },
      stage: { value: 'Won', fieldType: 'string', label: 'Deal stage' },
      amount: { value: 1054, fieldType: 'int' },
      ratio: { value: 0.5, fieldType: 'double', label: null },
      closed: { value: '2016-10-20', fieldType: 'date' },
      seen: { value: '2016-10-20T09:30:00.000Z', fieldType: 'datetime' },
      won: { value: true, fieldType: 'boolean' },
      tags: { value: ['a'], fieldType: 'list' },
      note: { value: null, fieldType: 'textarea' },
    },
  };
}

type Change = (body: Record<string, unknown>) => void;
const field = (name: string, value: unknown): Change => (b) => {
  (b.fields as Record<string, unknown>)[name] = value;
};

/** One change each, valid or not: the check must never say yes where zod says no or returns something else. */
const CHANGES: Record<string, Change> = {
  none: () => {},
  private: (b) => { b.public = false; b.ownerEmails = ['ann@example.com']; },
  privateNoOwner: (b) => { b.public = false; },
  noPublicWithOwner: (b) => { delete b.public; b.ownerEmails = ['ann@example.com']; },
  noPublicNoOwner: (b) => { delete b.public; },
  badOwner: (b) => { b.ownerEmails = ['not an address']; },
  oneBadOwner: (b) => { b.ownerEmails = ['ann@example.com', 'x']; },
  emptyOwners: (b) => { b.ownerEmails = []; },
  ownerNumber: (b) => { b.ownerEmails = [7]; },
  publicText: (b) => { b.public = 'true'; },
  publicNull: (b) => { b.public = null; },
  emptyId: (b) => { b.id = ''; },
  numberId: (b) => { b.id = 7; },
  badSource: (b) => { b.sourceId = 'nope'; },
  upperSource: (b) => { b.sourceId = SOURCE.toUpperCase(); },
  noType: (b) => { delete b.objectTypeId; },
  emptyName: (b) => { b.name = ''; },
  longName: (b) => { b.name = 'x'.repeat(1001); },
  maxName: (b) => { b.name = 'x'.repeat(1000); },
  createdIso: (b) => { b.createdAt = '2024-06-10T09:30:00.000Z'; },
  createdShortIso: (b) => { b.createdAt = '2024-06-10T09:30:00Z'; },
  createdOffset: (b) => { b.createdAt = '2024-06-10T11:30:00+02:00'; },
  createdDate: (b) => { b.createdAt = '2024-06-10'; },
  createdNumber: (b) => { b.createdAt = 1718011800000; },
  createdDigits: (b) => { b.createdAt = '1718011800'; },
  createdNull: (b) => { b.createdAt = null; },
  createdJunk: (b) => { b.createdAt = 'yesterday'; },
  updatedNull: (b) => { b.updatedAt = null; },
  updatedIso: (b) => { b.updatedAt = '2024-06-10T09:30:00.000Z'; },
  updatedSeconds: (b) => { b.updatedAt = 1718011800; },
  extraKey: (b) => { b.extra = 1; },
  extraFieldKey: field('agent', { value: 'x', fieldType: 'string', extra: 1 }),
  noFields: (b) => { b.fields = {}; },
  fieldsArray: (b) => { b.fields = []; },
  emptyFieldName: field('', { value: 'x', fieldType: 'string' }),
  noValue: field('agent', { fieldType: 'string' }),
  undefinedValue: field('agent', { value: undefined, fieldType: 'string' }),
  wrongType: field('amount', { value: 'ten', fieldType: 'int' }),
  fraction: field('amount', { value: 1.5, fieldType: 'int' }),
  nan: field('ratio', { value: Number.NaN, fieldType: 'double' }),
  badDate: field('closed', { value: '2016-13-40', fieldType: 'date' }),
  badDatetime: field('seen', { value: 'today', fieldType: 'datetime' }),
  unknownFieldType: field('agent', { value: 'x', fieldType: 'text' }),
  numberLabel: field('agent', { value: 'x', fieldType: 'string', label: 3 }),
  fieldNull: field('agent', null),
  fieldText: field('agent', 'x'),
  fieldsNull: (b) => { b.fields = null; },
  manyFields: (b) => { b.fields = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, { value: 'x', fieldType: 'string' }])); },
  fiftyFields: (b) => { b.fields = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, { value: 'x', fieldType: 'string' }])); },
};

function bodies(): [string, Record<string, unknown>][] {
  const names = Object.keys(CHANGES);
  const out: [string, Record<string, unknown>][] = [];
  // Every change alone and every pair of changes.
  for (let i = 0; i < names.length; i++) {
    for (let j = i; j < names.length; j++) {
      const body = structuredClone(base());
      CHANGES[names[i]!]!(body);
      CHANGES[names[j]!]!(body);
      out.push([`${names[i]} + ${names[j]}`, body]);
    }
  }
  return out;
}

describe('isPlainValidRow', () => {
  it('says yes only where zod accepts the body and returns it unchanged (differential, every change and pair)', () => {
    let yes = 0;
    for (const [name, body] of bodies()) {
      if (!isPlainValidRow(body)) continue;
      yes++;
      const parsed = rowRequest.safeParse(body);
      expect(parsed.success, name).toBe(true);
      expect(canonicalJson(parsed.data), name).toBe(canonicalJson(body));
    }
    // The common shapes take the fast path, or it would save nothing.
    expect(yes).toBeGreaterThan(50);
  });

  it('takes the bodies ferry builds: public or owned, with or without normalised timestamps', () => {
    for (const change of ['none', 'private', 'noPublicWithOwner', 'createdIso', 'updatedNull', 'updatedIso', 'maxName', 'fiftyFields']) {
      const body = structuredClone(base());
      CHANGES[change]!(body);
      expect(isPlainValidRow(body), change).toBe(true);
    }
  });

  it('leaves to zod what it would change or refuse: unknown keys, timestamps not in its output form, bad values', () => {
    for (const change of ['extraKey', 'extraFieldKey', 'createdShortIso', 'createdNumber', 'privateNoOwner', 'badOwner', 'wrongType', 'noFields', 'noValue']) {
      const body = structuredClone(base());
      CHANGES[change]!(body);
      expect(isPlainValidRow(body), change).toBe(false);
    }
  });
});
