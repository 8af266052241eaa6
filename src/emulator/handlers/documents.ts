/** /v1/documents */
import { EMAIL_PATTERN } from '../../api/schemas/common.js';
import { validation } from '../http/errors.js';
import { ok, type Handler } from '../http/context.js';
import { documentData, patchDocument } from '../ingest/document.js';
import { documentView } from '../views/records.js';
import { deleteRecord, detailRecord, includesCi, keySource, liveRecord, lockParts, recordResponse, writableSource } from './shared.js';

export const listDocuments: Handler<'listDocuments'> = (ctx) => {
  const q = ctx.query;
  const page = ctx.app.store.records.list({
    orgId: ctx.principal.orgId,
    kind: 'document',
    limit: q.limit,
    cursor: q.cursor,
    sourceId: q.sourceId,
    keep: (r) => q.name === undefined || includesCi(r.data.displayName, q.name),
  });
  return ok({ documents: page.items.map(documentView), pagination: { nextCursor: page.nextCursor, hasMore: page.hasMore } });
};

export const getDocument: Handler<'getDocument'> = (ctx) => {
  const id = ctx.params.documentId ?? '';
  return ok(documentView(detailRecord(ctx, 'document', id)));
};

export const createDocument: Handler<'createDocument'> = (ctx) => {
  const body = ctx.body;
  writableSource(ctx, body.sourceId);
  const key = { orgId: ctx.principal.orgId, kind: 'document' as const, sourceId: body.sourceId, remoteId: body.id };
  return ctx.app.withRecordLock(lockParts(key), ctx.delay, () => {
    const existing = ctx.app.store.records.findByKey(key);
    const now = Date.now();
    const data = documentData(body, existing?.data);
    const { record, status } = ctx.app.store.putRecord(
      key,
      {
        public: body.public === true,
        ownerEmails: body.ownerEmails ?? [],
        sortMs: data.createdAt ? Date.parse(data.createdAt) : (existing?.sortMs ?? now),
        data,
      },
      now,
    );
    return ok(recordResponse(status, record), 201);
  });
};

export const updateDocument: Handler<'updateDocument'> = (ctx) => {
  const q = ctx.query;
  const source = keySource(ctx, q.sourceId);
  if (source.deletedMs !== null) throw validation(`source ${source.id} has been deleted and accepts no more updates`, 'sourceId');
  const key = { orgId: ctx.principal.orgId, kind: 'document' as const, sourceId: q.sourceId, remoteId: q.remoteId };
  return ctx.app.withRecordLock(lockParts(key), ctx.delay, () => {
    const doc = liveRecord(ctx, key);
    const body = ctx.body;
    const isPublic = body.public ?? doc.public;
    const owners = body.ownerEmails ?? doc.ownerEmails;
    if (!isPublic && !owners.some((o) => EMAIL_PATTERN.test(o))) {
      throw validation('a private record (public is not true) must include at least one valid ownerEmails entry', 'ownerEmails');
    }
    const { record } = ctx.app.store.putRecord(key, {
      public: isPublic,
      ownerEmails: owners,
      sortMs: doc.sortMs,
      data: patchDocument(doc.data, body, doc.remoteId),
    });
    return ok(recordResponse('updated', record));
  });
};

export const deleteDocument: Handler<'deleteDocument'> = (ctx) => deleteRecord(ctx, 'document', ctx.query);
