/**
 * /v1/rows. A row may use any live object type of the caller's organization,
 * whichever source it is pushed under (the spec does not tie them together).
 */
import { EMAIL_PATTERN } from '../../api/schemas/common.js';
import { notFound, validation } from '../http/errors.js';
import { ok, type Handler, type RequestContext } from '../http/context.js';
import { mergeRowFields, rowFields } from '../ingest/row.js';
import type { ObjectTypeEntity, StoredRecord } from '../store/types.js';
import { rowView } from '../views/records.js';
import { boundMs, deleteRecord, includesCi, isUuid, keySource, liveRecord, lockParts, recordResponse, writableSource } from './shared.js';

function viewOf(ctx: RequestContext, cache: Map<string, ObjectTypeEntity | undefined>) {
  return (record: StoredRecord<'row'>) => {
    const id = record.objectTypeId ?? '';
    if (!cache.has(id)) cache.set(id, ctx.app.store.objectTypes.find(id));
    return rowView(record, cache.get(id));
  };
}

function writableObjectType(ctx: RequestContext, id: string): ObjectTypeEntity {
  const type = ctx.app.store.objectTypes.find(id);
  if (!type || type.orgId !== ctx.principal.orgId) {
    throw validation(`objectTypeId ${id} is not an object type of this organization`, 'objectTypeId');
  }
  if (type.deletedMs !== null) throw validation(`object type ${id} has been deleted; rows cannot use it`, 'objectTypeId');
  return type;
}

export const listRows: Handler<'listRows'> = (ctx) => {
  const q = ctx.query;
  const after = boundMs(q.createdAfter);
  const before = boundMs(q.createdBefore);
  const page = ctx.app.store.records.list({
    orgId: ctx.principal.orgId,
    kind: 'row',
    limit: q.limit,
    cursor: q.cursor,
    sourceId: q.sourceId,
    remoteId: q.remoteId,
    objectTypeId: q.objectTypeId,
    // A row's sort key is its createdAt when it has one, so the index narrows a bounded list; keep() still drops rows without createdAt.
    sortFrom: after,
    sortTo: before,
    keep: (r) => {
      if (q.name !== undefined && !includesCi(r.data.name, q.name)) return false;
      if (after === undefined && before === undefined) return true;
      const created = r.data.createdAt ? Date.parse(r.data.createdAt) : undefined;
      if (created === undefined) return false;
      return (after === undefined || created >= after) && (before === undefined || created <= before);
    },
  });
  return ok({ rows: page.items.map(viewOf(ctx, new Map())), pagination: { nextCursor: page.nextCursor, hasMore: page.hasMore } });
};

export const getRow: Handler<'getRow'> = (ctx) => {
  const id = ctx.params.rowId ?? '';
  const record = isUuid(id) ? ctx.app.store.records.findVisible(ctx.principal.orgId, 'row', id) : undefined;
  if (!record) throw notFound(`row ${id} not found`);
  return ok(viewOf(ctx, new Map())(record));
};

export const createRow: Handler<'createRow'> = (ctx) => {
  const body = ctx.body;
  writableSource(ctx, body.sourceId);
  const type = writableObjectType(ctx, body.objectTypeId);
  const fields = rowFields(body.fields, type);
  const key = { orgId: ctx.principal.orgId, kind: 'row' as const, sourceId: body.sourceId, remoteId: body.id };
  return ctx.app.withRecordLock(lockParts(key), ctx.delay, () => {
    const existing = ctx.app.store.records.findHeader(key);
    const now = Date.now();
    const { record, status } = ctx.app.store.putRecord(
      key,
      {
        public: body.public === true,
        ownerEmails: body.ownerEmails ?? [],
        objectTypeId: type.id,
        sortMs: body.createdAt ? Date.parse(body.createdAt) : (existing?.sortMs ?? now),
        data: { name: body.name, fields, createdAt: body.createdAt ?? null, updatedAt: body.updatedAt ?? null },
      },
      now,
    );
    return ok(recordResponse(status, record), 201);
  });
};

export const updateRow: Handler<'updateRow'> = (ctx) => {
  const q = ctx.query;
  const source = keySource(ctx, q.sourceId);
  if (source.deletedMs !== null) throw validation(`source ${source.id} has been deleted and accepts no more updates`, 'sourceId');
  const key = { orgId: ctx.principal.orgId, kind: 'row' as const, sourceId: q.sourceId, remoteId: q.remoteId };
  return ctx.app.withRecordLock(lockParts(key), ctx.delay, () => {
    const row = liveRecord(ctx, key);
    const type = ctx.app.store.objectTypes.find(row.objectTypeId ?? '');
    if (!type || type.deletedMs !== null) {
      throw validation(`the row's object type ${row.objectTypeId ?? ''} has been deleted; its rows cannot be updated`, 'objectTypeId');
    }
    const body = ctx.body;
    const data = { ...row.data };
    if (body.name != null) data.name = body.name;
    if (body.updatedAt != null) data.updatedAt = body.updatedAt;
    if (body.fields != null) data.fields = mergeRowFields(row.data.fields, body.fields, type);
    const isPublic = body.public ?? row.public;
    const owners = body.ownerEmails ?? row.ownerEmails;
    if (!isPublic && !owners.some((o) => EMAIL_PATTERN.test(o))) {
      throw validation('a private record (public is not true) must include at least one valid ownerEmails entry', 'ownerEmails');
    }
    const { record } = ctx.app.store.putRecord(key, {
      public: isPublic,
      ownerEmails: owners,
      objectTypeId: row.objectTypeId,
      sortMs: row.sortMs,
      data,
    });
    return ok(recordResponse('updated', record));
  });
};

export const deleteRow: Handler<'deleteRow'> = (ctx) => deleteRecord(ctx, 'row', ctx.query);
