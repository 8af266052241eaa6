import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObjectType, createSource, row, startApi, type Api } from './helpers.js';

describe('emulator: sources and object types', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.emulator.close());

  it('creates, lists, filters, gets, renames and deletes sources', async () => {
    const created = await api.post('/v1/sources', { name: 'hubspot-export', displayName: 'HubSpot' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'hubspot-export', displayName: 'HubSpot' });
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const id = created.body.id as string;
    await api.post('/v1/sources', { name: 'zendesk', displayName: 'Zendesk' });

    const dup = await api.post('/v1/sources', { name: 'hubspot-export', displayName: 'Other' });
    expect(dup.status).toBe(409);
    expect(dup.body.detail).toMatchObject({ error: 'conflict', field: 'name' });

    const all = await api.get('/v1/sources');
    expect(all.body.sources.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(['hubspot-export', 'zendesk']));
    const filtered = await api.get('/v1/sources?name=HUBSPOT');
    expect(filtered.body.sources.map((s: { name: string }) => s.name)).toEqual(['hubspot-export']);

    expect((await api.get(`/v1/sources/${id}`)).body.displayName).toBe('HubSpot');
    // name is immutable: a PATCH naming it is refused, not silently ignored.
    const rename = await api.patch(`/v1/sources/${id}`, { displayName: 'HubSpot CRM', name: 'other' });
    expect(rename.status).toBe(400);
    expect(rename.body.detail).toMatchObject({ error: 'validation_error', field: 'name' });
    const renamed = await api.patch(`/v1/sources/${id}`, { displayName: 'HubSpot CRM' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'hubspot-export', displayName: 'HubSpot CRM' });
    expect((await api.patch(`/v1/sources/${id}`, {})).body.detail.field).toBe('displayName');

    const deleted = await api.del(`/v1/sources/${id}`);
    expect(deleted.body).toEqual({ status: 'deleted', id });
    expect((await api.get(`/v1/sources/${id}`)).status).toBe(404);
    expect((await api.del(`/v1/sources/${id}`)).status).toBe(404);
    expect((await api.get('/v1/sources')).body.sources.some((s: { id: string }) => s.id === id)).toBe(false);
    // The name is free again once the source is deleted.
    expect((await api.post('/v1/sources', { name: 'hubspot-export', displayName: 'again' })).status).toBe(201);
    expect((await api.get(`/v1/sources/${randomUUID()}`)).status).toBe(404);
  });

  it('validates source bodies and the name filter', async () => {
    const res = await api.post('/v1/sources', { name: '', displayName: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.detail.field).toBe('name');
    expect((await api.post('/v1/sources', { name: 'a'.repeat(256), displayName: 'x' })).status).toBe(400);
    const longFilter = await api.get(`/v1/sources?name=${'a'.repeat(256)}`);
    expect(longFilter.status).toBe(422);
    expect(longFilter.body.detail[0].loc).toEqual(['query', 'name']);
  });

  it('manages object types with their rules', async () => {
    const sourceId = await createSource(api);
    const other = await createSource(api);
    const typeId = await createObjectType(api, sourceId, 'ticket');
    const got = await api.get(`/v1/object-types/${typeId}`);
    expect(got.body).toMatchObject({ id: typeId, sourceId, name: 'ticket', displayName: 'Deal' });
    expect(got.body.fieldDefinitions[0]).toEqual({ name: 'amount', fieldType: 'double', label: 'Amount', required: true });
    expect(got.body.fieldDefinitions[1]).toEqual({ name: 'stage', fieldType: 'string', label: null, required: false });

    const base = { sourceId, name: 'ticket', displayName: 'T', fieldDefinitions: [{ name: 'a', fieldType: 'string' }] };
    expect((await api.post('/v1/object-types', base)).status).toBe(409);
    // Same name under another source is fine.
    const elsewhere = await api.post('/v1/object-types', { ...base, sourceId: other });
    expect(elsewhere.status).toBe(201);
    const dupFields = await api.post('/v1/object-types', {
      ...base,
      name: 'dup',
      fieldDefinitions: [{ name: 'a', fieldType: 'string' }, { name: 'a', fieldType: 'int' }],
    });
    expect(dupFields.status).toBe(400);
    expect(dupFields.body.detail.field).toBe('fieldDefinitions.1.name');
    const badType = await api.post('/v1/object-types', { ...base, name: 'bad', fieldDefinitions: [{ name: 'a', fieldType: 'money' }] });
    expect(badType.body.detail.field).toBe('fieldDefinitions.0.fieldType');
    const noSource = await api.post('/v1/object-types', { ...base, name: 'n', sourceId: randomUUID() });
    expect(noSource.status).toBe(400);
    expect(noSource.body.detail.field).toBe('sourceId');
    expect((await api.post('/v1/object-types', { ...base, name: 'e', fieldDefinitions: [] })).status).toBe(400);

    const listed = await api.get(`/v1/object-types?sourceId=${sourceId}`);
    expect(listed.body.objectTypes.map((t: { id: string }) => t.id)).toEqual([typeId]);
    expect((await api.get('/v1/object-types?sourceId=nope')).status).toBe(422);

    const patched = await api.patch(`/v1/object-types/${typeId}`, {
      displayName: 'Ticket',
      fieldDefinitions: [{ name: 'priority', fieldType: 'int', required: false }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.displayName).toBe('Ticket');
    expect(patched.body.fieldDefinitions.map((f: { name: string }) => f.name)).toEqual(['priority']);
    const nameOnly = await api.patch(`/v1/object-types/${typeId}`, { displayName: null, fieldDefinitions: null });
    expect(nameOnly.body.displayName).toBe('Ticket');

    expect((await api.del(`/v1/object-types/${typeId}`)).body).toEqual({ status: 'deleted', id: typeId });
    expect((await api.get(`/v1/object-types/${typeId}`)).status).toBe(404);
    expect((await api.patch(`/v1/object-types/${typeId}`, { displayName: 'x' })).status).toBe(404);
  });

  it('keeps rows of a deleted object type readable but refuses new rows and updates', async () => {
    const sourceId = await createSource(api);
    const typeId = await createObjectType(api, sourceId);
    const created = await api.post('/v1/rows', row(sourceId, typeId, 'r1'));
    expect(created.status).toBe(201);
    await api.del(`/v1/object-types/${typeId}`);
    const read = await api.get(`/v1/rows/${created.body.recordId}`);
    expect(read.status).toBe(200);
    expect(read.body.objectTypeName).toBe('deal');
    const again = await api.post('/v1/rows', row(sourceId, typeId, 'r2'));
    expect(again.status).toBe(400);
    expect(again.body.detail.field).toBe('objectTypeId');
    const patch = await api.patch(`/v1/rows?remoteId=r1&sourceId=${sourceId}`, { name: 'x' });
    expect(patch.status).toBe(400);
    expect(patch.body.detail.field).toBe('objectTypeId');
  });

  it('refuses imports into a deleted source but keeps its records and object types', async () => {
    const sourceId = await createSource(api);
    const typeId = await createObjectType(api, sourceId);
    const created = await api.post('/v1/rows', row(sourceId, typeId, 'keep'));
    await api.del(`/v1/sources/${sourceId}`);
    const refused = await api.post('/v1/rows', row(sourceId, typeId, 'new'));
    expect(refused.status).toBe(400);
    expect(refused.body.detail.field).toBe('sourceId');
    expect((await api.get(`/v1/rows/${created.body.recordId}`)).status).toBe(200);
    expect((await api.get(`/v1/object-types/${typeId}`)).status).toBe(200);
  });
});
