/** /v1/messages */
import { ok, type Handler } from '../http/context.js';
import { messageData } from '../ingest/message.js';
import type { MessageData } from '../store/types.js';
import { messageDetail, messageListItem } from '../views/records.js';
import { boundMs, deleteRecord, detailRecord, lockParts, recordResponse, writableSource } from './shared.js';

const involves = (m: MessageData, email: string): boolean => {
  const e = email.trim().toLowerCase();
  return m.sender?.email?.toLowerCase() === e || m.recipients.some((r) => r.email?.toLowerCase() === e);
};

export const listMessages: Handler<'listMessages'> = (ctx) => {
  const q = ctx.query;
  const page = ctx.app.store.records.list({
    orgId: ctx.principal.orgId,
    kind: 'message',
    limit: q.limit,
    cursor: q.cursor,
    sourceId: q.sourceId,
    remoteId: q.remoteId,
    sortFrom: boundMs(q.createdAfter),
    sortTo: boundMs(q.createdBefore),
    keep: (r) =>
      (q.threadId === undefined || r.data.threadId === q.threadId) &&
      (q.participantEmail === undefined || involves(r.data, q.participantEmail)),
  });
  return ok({ messages: page.items.map(messageListItem), pagination: { nextCursor: page.nextCursor, hasMore: page.hasMore } });
};

export const getMessage: Handler<'getMessage'> = (ctx) => {
  const id = ctx.params.messageId ?? '';
  return ok(messageDetail(detailRecord(ctx, 'message', id)));
};

export const createMessage: Handler<'createMessage'> = (ctx) => {
  const body = ctx.body;
  writableSource(ctx, body.sourceId);
  const key = { orgId: ctx.principal.orgId, kind: 'message' as const, sourceId: body.sourceId, remoteId: body.id };
  return ctx.app.withRecordLock(lockParts(key), ctx.delay, () => {
    const data = messageData(body, lockParts(key));
    const { record, status } = ctx.app.store.putRecord(key, {
      public: body.public === true,
      ownerEmails: body.ownerEmails ?? [],
      sortMs: Date.parse(data.createdAt),
      data,
    });
    return ok(recordResponse(status, record), 201);
  });
};

export const deleteMessage: Handler<'deleteMessage'> = (ctx) => deleteRecord(ctx, 'message', ctx.query);
