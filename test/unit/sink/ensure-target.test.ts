import { describe, it, expect } from 'vitest';
import { ensureTarget, PLANNED_ID } from '../../../src/sink/ensure-target.js';
import type { EnsureTargetConfig } from '../../../src/sink/ensure-target.js';
import { FerryError } from '../../../src/sdk/errors.js';
import type { FieldType } from '../../../src/sdk/types.js';
import { FakeService } from './fake-service.js';

function rowTarget(fields?: Record<string, { type: FieldType; label?: string; required?: boolean }>, newFields: EnsureTargetConfig['newFields'] = 'evolve'): EnsureTargetConfig {
  return {
    type: 'row',
    source: { name: 'crm', displayName: 'CRM' },
    objectType: {
      name: 'deal',
      displayName: 'Deal',
      ...(fields ? { fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { required: false, label: undefined, ...v }])) } : {}),
    },
    newFields,
  };
}

const writes = (svc: FakeService) => svc.calls.filter((c) => /^(create|update)/.test(c.method));

describe('ensureTarget', () => {
  it('creates a missing source and object type with declared and inferred fields, declared winning', async () => {
    const svc = new FakeService();
    const result = await ensureTarget(svc, rowTarget({ amount: { type: 'double', label: 'Amount', required: true } }), {
      inferredFields: new Map<string, FieldType>([['amount', 'int'], ['stage', 'string']]),
    });

    expect(svc.callsOf('createSource')[0]?.args[0]).toEqual({ name: 'crm', displayName: 'CRM' });
    const created = svc.callsOf('createObjectType')[0]?.args[0];
    expect(created).toEqual({
      sourceId: result.sourceId,
      name: 'deal',
      displayName: 'Deal',
      fieldDefinitions: [
        { name: 'amount', fieldType: 'double', label: 'Amount', required: true },
        { name: 'stage', fieldType: 'string', label: null, required: false },
      ],
    });
    expect(result.changes).toEqual([
      { kind: 'create-source', name: 'crm' },
      { kind: 'create-object-type', name: 'deal', fields: [
        { name: 'amount', type: 'double', label: 'Amount', required: true },
        { name: 'stage', type: 'string' },
      ] },
    ]);
    expect(result.objectType?.fieldTypes).toEqual(new Map([['amount', 'double'], ['stage', 'string']]));
    expect(result.objectType?.labels.get('amount')).toBe('Amount');
    expect([...(result.objectType?.required ?? [])]).toEqual(['amount']);
    expect(result.objectType?.id).toBe(svc.objectTypes[0]?.id);
  });

  it('defaults a source displayName to its name', async () => {
    const svc = new FakeService();
    await ensureTarget(svc, { type: 'message', source: { name: 'mail' }, newFields: 'evolve' });
    expect(svc.callsOf('createSource')[0]?.args[0]).toEqual({ name: 'mail', displayName: 'mail' });
  });

  it('finds the source by exact name among partial matches and writes nothing when all exists', async () => {
    const svc = new FakeService();
    svc.addSource('crm-legacy');
    svc.addSource('CRM');
    const crm = svc.addSource('crm');
    svc.addObjectType(crm.id, 'deal', { amount: 'double' });

    const result = await ensureTarget(svc, rowTarget({ amount: { type: 'double' } }));

    expect(svc.callsOf('listSources')[0]?.args[0]).toEqual({ name: 'crm' });
    expect(result.sourceId).toBe(crm.id);
    expect(result.changes).toEqual([]);
    expect(writes(svc)).toEqual([]);
  });

  it('does not create object types for non-row targets', async () => {
    const svc = new FakeService();
    const result = await ensureTarget(svc, { type: 'conversation', source: { name: 'calls' }, newFields: 'evolve' });
    expect(result.objectType).toBeUndefined();
    expect(svc.callsOf('listObjectTypes')).toEqual([]);
  });

  it('evolves an existing object type: the PATCH carries every existing field plus the new ones', async () => {
    const svc = new FakeService();
    const crm = svc.addSource('crm');
    const type = svc.addObjectType(crm.id, 'deal', {
      amount: { type: 'double', label: 'Amount', required: true },
      legacy_code: 'string', // not mentioned by the config any more: must survive
    });

    const result = await ensureTarget(svc, rowTarget({ stage: { type: 'string', label: 'Stage' } }), {
      inferredFields: new Map<string, FieldType>([['closed_at', 'datetime'], ['amount', 'double']]),
    });

    const patch = svc.callsOf('updateObjectType');
    expect(patch).toHaveLength(1);
    expect(patch[0]?.args).toEqual([type.id, { fieldDefinitions: [
      { name: 'amount', fieldType: 'double', label: 'Amount', required: true },
      { name: 'legacy_code', fieldType: 'string', label: null, required: false },
      { name: 'stage', fieldType: 'string', label: 'Stage', required: false },
      { name: 'closed_at', fieldType: 'datetime', label: null, required: false },
    ] }]);
    expect(result.changes).toEqual([{ kind: 'add-fields', name: 'deal', fields: [
      { name: 'stage', type: 'string', label: 'Stage' },
      { name: 'closed_at', type: 'datetime' },
    ] }]);
    expect([...(result.objectType?.fieldTypes.keys() ?? [])]).toEqual(['amount', 'legacy_code', 'stage', 'closed_at']);
  });

  it('refuses a declared type that conflicts with the existing field, without writing', async () => {
    const svc = new FakeService();
    const crm = svc.addSource('crm');
    svc.addObjectType(crm.id, 'deal', { amount: 'double' });

    const error = await ensureTarget(svc, rowTarget({ amount: { type: 'int' }, stage: { type: 'string' } })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(FerryError);
    const fe = error as FerryError;
    expect(fe.code).toBe('FERRY_CONFIG_INVALID');
    expect(fe.message).toContain('"amount" is double in the service but declared as int');
    expect(fe.message).toContain("cannot change a field's type in place");
    expect(fe.hint).toMatch(/new field name/);
    expect(writes(svc)).toEqual([]);
  });

  it('keeps the existing type when only an inferred type differs', async () => {
    const svc = new FakeService();
    const crm = svc.addSource('crm');
    svc.addObjectType(crm.id, 'deal', { amount: 'double' });
    const result = await ensureTarget(svc, rowTarget(), { inferredFields: new Map<string, FieldType>([['amount', 'int']]) });
    expect(result.objectType?.fieldTypes.get('amount')).toBe('double');
    expect(writes(svc)).toEqual([]);
  });

  it('adds declared fields but not inferred ones under freeze and discard', async () => {
    for (const policy of ['freeze', 'discard'] as const) {
      const svc = new FakeService();
      const crm = svc.addSource('crm');
      svc.addObjectType(crm.id, 'deal', { amount: 'double' });
      const result = await ensureTarget(svc, rowTarget({ stage: { type: 'string' } }, policy), {
        inferredFields: new Map<string, FieldType>([['guess', 'int']]),
      });
      expect(result.changes).toEqual([{ kind: 'add-fields', name: 'deal', fields: [{ name: 'stage', type: 'string' }] }]);
    }
  });

  it('dry run: plans creation without writing, with placeholder ids', async () => {
    const svc = new FakeService();
    const result = await ensureTarget(svc, rowTarget({ amount: { type: 'double' } }), { dryRun: true });
    expect(writes(svc)).toEqual([]);
    expect(result.sourceId).toBe(PLANNED_ID);
    expect(result.objectType?.id).toBe(PLANNED_ID);
    expect(result.changes.map((c) => c.kind)).toEqual(['create-source', 'create-object-type']);
    expect(svc.callsOf('listObjectTypes')).toEqual([]); // nothing to list under a source that does not exist
  });

  it('dry run: plans added fields on an existing object type without patching', async () => {
    const svc = new FakeService();
    const crm = svc.addSource('crm');
    const type = svc.addObjectType(crm.id, 'deal', { amount: 'double' });
    const result = await ensureTarget(svc, rowTarget({ stage: { type: 'string' } }), { dryRun: true });
    expect(writes(svc)).toEqual([]);
    expect(result.sourceId).toBe(crm.id);
    expect(result.objectType?.id).toBe(type.id);
    expect(result.changes).toEqual([{ kind: 'add-fields', name: 'deal', fields: [{ name: 'stage', type: 'string' }] }]);
    expect(result.objectType?.fieldTypes.has('stage')).toBe(true);
  });

  it('uses the source another run created when create answers 409', async () => {
    const svc = new FakeService();
    let rival = '';
    svc.beforeCreateSource = (body) => { rival = svc.addSource(body.name).id; };
    const result = await ensureTarget(svc, { type: 'document', source: { name: 'docs' }, newFields: 'evolve' });
    expect(result.sourceId).toBe(rival);
    expect(svc.callsOf('listSources')).toHaveLength(2);
  });

  it('evolves the object type another run created when create answers 409', async () => {
    const svc = new FakeService();
    const crm = svc.addSource('crm');
    svc.beforeCreateObjectType = (body) => { svc.addObjectType(body.sourceId, body.name, { other: 'string' }); };
    const result = await ensureTarget(svc, rowTarget({ amount: { type: 'double' } }));
    expect(result.sourceId).toBe(crm.id);
    expect(result.changes).toEqual([{ kind: 'add-fields', name: 'deal', fields: [{ name: 'amount', type: 'double' }] }]);
    expect(svc.objectTypes[0]?.fieldDefinitions.map((d) => d.name)).toEqual(['other', 'amount']);
  });

  it('refuses more than 50 fields with a clear error', async () => {
    const svc = new FakeService();
    const crm = svc.addSource('crm');
    svc.addObjectType(crm.id, 'deal', Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`f${i}`, 'string' as const])));
    const inferred = new Map<string, FieldType>(Array.from({ length: 6 }, (_, i) => [`g${i}`, 'int' as const]));
    const error = await ensureTarget(svc, rowTarget(), { inferredFields: inferred }).catch((e: unknown) => e);
    expect((error as FerryError).code).toBe('FERRY_CONFIG_INVALID');
    expect((error as FerryError).message).toContain('would have 51 fields (45 existing, 6 new); the service allows at most 50');
    expect(writes(svc)).toEqual([]);
  });

  it('refuses to create an object type with no known fields', async () => {
    const svc = new FakeService();
    const error = await ensureTarget(svc, rowTarget()).catch((e: unknown) => e);
    expect((error as FerryError).code).toBe('FERRY_CONFIG_INVALID');
    expect(writes(svc)).toEqual([]); // checked before the source is created
  });
});
