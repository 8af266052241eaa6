/** /v1/conversations */
import { stableUuid } from '../app.js';
import { notFound } from '../http/errors.js';
import { ok, type Handler, type RequestContext } from '../http/context.js';
import { conversationData } from '../ingest/conversation.js';
import { extensionOf, generateWav } from '../media/wav.js';
import type { ConversationData } from '../store/types.js';
import { conversationDetail, conversationListItem, type MediaUrlFn } from '../views/records.js';
import { boundMs, deleteRecord, includesCi, isUuid, lockParts, recordResponse, writableSource } from './shared.js';

/** Generated stand-in recordings are at most this long, to keep the database small. */
const MAX_GENERATED_SECONDS = 5;

/** `attendees`: a participant name fragment, a full e-mail, or a company domain (`acme.com` or `@acme.com`). */
export function matchesAttendee(c: ConversationData, needle: string): boolean {
  const n = needle.trim().toLowerCase();
  if (n === '') return true;
  const domain = n.startsWith('@') ? n.slice(1) : n;
  return c.participants.some((p) => {
    const email = p.email?.toLowerCase();
    if (email !== undefined && (email === n || email.slice(email.lastIndexOf('@') + 1) === domain)) return true;
    return p.name != null && p.name.toLowerCase().includes(n);
  });
}

/** `crmName`: the phrase appears in the CRM name as whole words, case-insensitively. */
export function matchesCrmName(c: ConversationData, phrase: string): boolean {
  const name = c.crm?.name?.toLowerCase();
  const p = phrase.trim().toLowerCase();
  if (!name || p === '') return false;
  const escaped = p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(name);
}

export function mediaUrlFor(ctx: RequestContext): MediaUrlFn {
  return (mediaId, disposition) => {
    const media = ctx.app.store.media.find(mediaId);
    return ctx.app.mediaUrl(mediaId, extensionOf(media?.contentType ?? 'audio/wav'), disposition);
  };
}

export const listConversations: Handler<'listConversations'> = (ctx) => {
  const q = ctx.query;
  const page = ctx.app.store.records.list({
    orgId: ctx.principal.orgId,
    kind: 'conversation',
    limit: q.limit,
    cursor: q.cursor,
    sourceId: q.sourceId,
    sortFrom: boundMs(q.startedAfter),
    sortTo: boundMs(q.startedBefore),
    keep: (r) =>
      (q.type === undefined || r.data.type === q.type) &&
      (q.title === undefined || includesCi(r.data.title, q.title)) &&
      (q.attendees === undefined || matchesAttendee(r.data, q.attendees)) &&
      (q.crmName === undefined || matchesCrmName(r.data, q.crmName)),
  });
  return ok({ conversations: page.items.map(conversationListItem), pagination: { nextCursor: page.nextCursor, hasMore: page.hasMore } });
};

export const getConversation: Handler<'getConversation'> = (ctx) => {
  const id = ctx.params.conversationId ?? '';
  const record = isUuid(id) ? ctx.app.store.records.findVisible(ctx.principal.orgId, 'conversation', id) : undefined;
  if (!record) throw notFound(`conversation ${id} not found`);
  return ok(conversationDetail(record, mediaUrlFor(ctx)));
};

export const createConversation: Handler<'createConversation'> = (ctx) => {
  const body = ctx.body;
  writableSource(ctx, body.sourceId);
  const key = { orgId: ctx.principal.orgId, kind: 'conversation' as const, sourceId: body.sourceId, remoteId: body.id };
  return ctx.app.withRecordLock(lockParts(key), ctx.delay, () => {
    let mediaId: string | null = null;
    if (body.recordingUrl) {
      mediaId = stableUuid(...lockParts(key), 'recording');
      const end = body.endedAt ? Date.parse(body.endedAt) : Date.parse(body.startedAt) + 1000;
      const seconds = Math.min(MAX_GENERATED_SECONDS, Math.max(1, (end - Date.parse(body.startedAt)) / 1000));
      ctx.app.store.media.put({ id: mediaId, orgId: key.orgId, contentType: 'audio/wav', bytes: generateWav(seconds) });
    }
    const data = conversationData(body, mediaId);
    const { record, status } = ctx.app.store.putRecord(key, {
      public: body.public === true,
      ownerEmails: body.ownerEmails ?? [],
      sortMs: Date.parse(data.startTime),
      data,
    });
    return ok(recordResponse(status, record), 201);
  });
};

export const deleteConversation: Handler<'deleteConversation'> = (ctx) => deleteRecord(ctx, 'conversation', ctx.query);
