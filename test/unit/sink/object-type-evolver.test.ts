import { describe, it, expect } from 'vitest';
import { ObjectTypeEvolver } from '../../../src/sink/object-type-evolver.js';
import type { NewFieldsPolicy } from '../../../src/sink/object-type-evolver.js';
import { targetObjectType } from '../../../src/sink/field-schema.js';
import type { FieldType } from '../../../src/sdk/types.js';
import { inferFieldType } from '../../../src/mapping/index.js';
import { FakeService, recordingLogger } from './fake-service.js';

function setup(policy: NewFieldsPolicy, fields: Record<string, FieldType> = { amount: 'double', stage: 'string' }, dryRun = false) {
  const svc = new FakeService();
  const source = svc.addSource('crm');
  const type = svc.addObjectType(source.id, 'deal', fields);
  const objectType = targetObjectType(type, type.fieldDefinitions);
  const { lines, logger } = recordingLogger();
  const evolver = new ObjectTypeEvolver({ service: svc, objectType, target: { newFields: policy }, inferType: (_field, sample) => inferFieldType([sample]), logger, dryRun });
  return { svc, type, objectType, evolver, lines };
}

describe('ObjectTypeEvolver', () => {
  it('accepts known fields without any request', async () => {
    const { svc, evolver } = setup('evolve');
    const answer = evolver.resolve({ amount: 1.5, stage: 'won' });
    expect(answer).not.toBeInstanceOf(Promise);
    const r = await answer;
    expect(r.accepted).toEqual(new Map([['amount', 'double'], ['stage', 'string']]));
    expect(r.fields).toEqual({ amount: 1.5, stage: 'won' });
    expect(r.rejected).toEqual([]);
    expect(r.dropped).toEqual([]);
    expect(svc.calls).toEqual([]);
  });

  it('evolve: PATCHes existing + new fields with inferred types and updates the shared object type', async () => {
    const { svc, type, evolver, objectType } = setup('evolve');
    const r = await evolver.resolve(new Map<string, unknown>([['amount', 2], ['closed_on', '2024-03-01'], ['seats', 12], ['notes', 'a\nb']]));

    const patches = svc.callsOf('updateObjectType');
    expect(patches).toHaveLength(1);
    expect(patches[0]?.args).toEqual([type.id, { fieldDefinitions: [
      { name: 'amount', fieldType: 'double', label: null, required: false },
      { name: 'stage', fieldType: 'string', label: null, required: false },
      { name: 'closed_on', fieldType: 'date', label: null, required: false },
      { name: 'seats', fieldType: 'int', label: null, required: false },
      { name: 'notes', fieldType: 'textarea', label: null, required: false },
    ] }]);
    expect(r.accepted.get('closed_on')).toBe('date');
    expect(r.rejected).toEqual([]);
    expect(objectType.fieldTypes.get('seats')).toBe('int');
    expect(evolver.fieldTypes.get('notes')).toBe('textarea');
    expect(evolver.added.map((f) => f.name)).toEqual(['closed_on', 'seats', 'notes']);
  });

  it('evolve: concurrent records share PATCHes, one in flight at a time, each merged onto the latest schema', async () => {
    const { svc, evolver } = setup('evolve');
    let release!: () => void;
    svc.patchGate = new Promise<void>((resolve) => { release = resolve; });

    const first = [evolver.resolve({ a: 1 }), evolver.resolve({ b: 'x' })];
    // Let the first PATCH go out and block on the gate.
    while (svc.patchesInFlight === 0) await new Promise((r) => setImmediate(r));
    // Another run adds a field right after our first PATCH lands; more records bring new names meanwhile.
    svc.afterPatch = (t) => {
      svc.afterPatch = undefined;
      t.fieldDefinitions.push({ name: 'rival', fieldType: 'boolean', label: null, required: false });
    };
    const later = [evolver.resolve({ c: true }), evolver.resolve({ d: 1.5, c: false }), evolver.resolve({ a: 2 })];
    release();
    const results = await Promise.all([...first, ...later]);

    expect(svc.maxPatchesInFlight).toBe(1);
    expect(evolver.patchCount).toBe(2);
    const bodies = svc.callsOf('updateObjectType').map((c) => (c.args[1] as { fieldDefinitions: { name: string }[] }).fieldDefinitions.map((d) => d.name));
    expect(bodies).toEqual([
      ['amount', 'stage', 'a', 'b'],
      ['amount', 'stage', 'a', 'b', 'rival', 'c', 'd'],
    ]);
    expect(results.map((r) => r.rejected)).toEqual([[], [], [], [], []]);
    expect(evolver.fieldTypes.get('rival')).toBe('boolean');
  });

  it('evolve: a field another run already added is taken as it is, without a PATCH', async () => {
    const { svc, evolver } = setup('evolve');
    svc.objectTypes[0]!.fieldDefinitions.push({ name: 'owner', fieldType: 'string', label: 'Owner', required: false });
    const r = await evolver.resolve({ owner: 42 });
    expect(svc.callsOf('updateObjectType')).toEqual([]);
    expect(r.accepted.get('owner')).toBe('string');
    expect(evolver.fieldLabels.get('owner')).toBe('Owner');
  });

  it('evolve: fields beyond the 50-field limit are rejected with a reason', async () => {
    const many = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`f${i}`, 'string' as const]));
    const { svc, evolver } = setup('evolve', many);
    const r = await evolver.resolve({ f0: 'x', new1: 1, new2: 2 });
    expect(r.accepted.has('new1')).toBe(true);
    expect(r.rejected).toEqual(['new2']);
    expect(r.reason).toContain('"new2"');
    expect(r.reason).toContain('50 fields');
    expect(svc.callsOf('updateObjectType')).toHaveLength(1);
    // Asked again, the unfit field is rejected without another round trip.
    const again = await evolver.resolve({ new2: 3 });
    expect(again.rejected).toEqual(['new2']);
    expect(svc.callsOf('updateObjectType')).toHaveLength(1);
  });

  it('freeze: unknown fields make the record invalid, naming them; nothing is written', async () => {
    const { svc, evolver } = setup('freeze');
    const r = await evolver.resolve({ amount: 1, color: 'red', size: 3 });
    expect(r.rejected).toEqual(['color', 'size']);
    expect(r.reason).toBe('field(s) "color", "size" not on object type "deal" (newFields: freeze)');
    expect(r.dropped).toEqual([]);
    expect(svc.calls).toEqual([]);
  });

  it('discard: unknown fields are dropped from the record and logged once per field', async () => {
    const { svc, evolver, lines } = setup('discard');
    const r1 = await evolver.resolve({ amount: 1, color: 'red' });
    const r2 = await evolver.resolve({ amount: 2, color: 'blue', size: 1 });
    expect(r1.rejected).toEqual([]);
    expect(r1.dropped).toEqual(['color']);
    expect(r1.fields).toEqual({ amount: 1 });
    expect(r2.fields).toEqual({ amount: 2 });
    const warned = lines.filter((l) => l.level === 'warn').map((l) => (l.obj as { field: string }).field);
    expect(warned).toEqual(['color', 'size']);
    expect(svc.calls).toEqual([]);
  });

  it('dry run: new fields are accepted locally and listed, without a PATCH', async () => {
    const { svc, evolver } = setup('evolve', { amount: 'double' }, true);
    const r = await evolver.resolve({ amount: 1, stage: 'won' });
    expect(r.accepted.get('stage')).toBe('string');
    expect(evolver.added).toEqual([{ name: 'stage', type: 'string' }]);
    expect(svc.calls).toEqual([]);
  });

  it('a failed PATCH fails every record waiting on it', async () => {
    const { svc, evolver } = setup('evolve');
    let release!: () => void;
    svc.patchGate = new Promise<void>((resolve) => { release = resolve; });
    const first = evolver.resolve({ a: 1 });
    while (svc.patchesInFlight === 0) await new Promise((r) => setImmediate(r));
    const second = evolver.resolve({ a: 2 });
    svc.objectTypes.length = 0; // the PATCH will answer 404
    release();
    await expect(first).rejects.toMatchObject({ status: 404 });
    await expect(second).rejects.toMatchObject({ status: 404 });
  });

  it('fails clearly when the object type was deleted during the run', async () => {
    const { svc, evolver } = setup('evolve');
    svc.objectTypes.length = 0;
    await expect(evolver.resolve({ extra: 1 })).rejects.toMatchObject({ code: 'FERRY_SERVICE_ERROR' });
  });
});
