/** Checks shared by the handlers of pushed records. */
import { NATIVE_DOCUMENT_SOURCES, uuid } from '../../api/schemas/common.js';
import type { RecordKind, SourceEntity, StoredRecord } from '../store/types.js';
import { forbidden, notFound, validation } from '../http/errors.js';
import type { RequestContext } from '../http/context.js';
import type { RecordKey } from '../store/records.js';

export const isUuid = (value: string): boolean => uuid.safeParse(value).success;

/** The source a POST writes into: a live source of the caller's organization (else 400 on sourceId). */
export function writableSource(ctx: RequestContext, sourceId: string): SourceEntity {
  const source = ctx.app.store.sources.find(sourceId);
  if (!source || source.orgId !== ctx.principal.orgId) {
    throw validation(`sourceId ${sourceId} is not a source of this organization; create it with POST /v1/sources`, 'sourceId');
  }
  if (source.deletedMs !== null) {
    throw validation(`source ${sourceId} has been deleted and accepts no more imports`, 'sourceId');
  }
  return source;
}

/**
 * The source named by the `sourceId` query of PATCH/DELETE: 404 when it does
 * not exist, 403 when another organization owns it.
 */
export function keySource(ctx: RequestContext, sourceId: string): SourceEntity {
  const source = ctx.app.store.sources.find(sourceId);
  if (!source) throw notFound(`source ${sourceId} not found`, 'sourceId');
  if (source.orgId !== ctx.principal.orgId) throw forbidden(`source ${sourceId} belongs to another organization`, 'sourceId');
  return source;
}

/** The live (not soft-deleted) record under the key, or 404. */
export function liveRecord<K extends RecordKind>(ctx: RequestContext, key: RecordKey & { kind: K }): StoredRecord<K> {
  const record = ctx.app.store.records.findByKey(key);
  if (!record || record.deletedMs !== null) {
    throw notFound(`no ${key.kind} with remoteId "${key.remoteId}" in source ${key.sourceId}`, 'remoteId');
  }
  return record;
}

export const lockParts = (key: RecordKey): string[] => [key.orgId, key.kind, key.sourceId, key.remoteId];

export function recordResponse(status: 'created' | 'updated', record: StoredRecord) {
  return { status, recordId: record.id, id: record.remoteId, sourceId: record.sourceId };
}

/** DELETE ?remoteId&sourceId of any pushed kind: soft delete, 404 when absent or already deleted. */
export async function deleteRecord(ctx: RequestContext, kind: RecordKind, query: { remoteId: string; sourceId: string }) {
  keySource(ctx, query.sourceId);
  const key = { orgId: ctx.principal.orgId, kind, sourceId: query.sourceId, remoteId: query.remoteId };
  return ctx.app.withRecordLock(lockParts(key), ctx.delay, () => {
    const record = liveRecord(ctx, key);
    const now = Date.now();
    ctx.app.store.deleteRecord(record.id, now);
    return {
      status: 200,
      body: { status: 'deleted', recordId: record.id, id: record.remoteId, sourceId: record.sourceId, deletedAt: new Date(now).toISOString() },
    };
  });
}

/** Epoch ms of an ISO query bound, or undefined. */
export const boundMs = (value: string | undefined): number | undefined => (value === undefined ? undefined : Date.parse(value));

export const includesCi = (haystack: string | null | undefined, needle: string): boolean =>
  haystack != null && haystack.toLowerCase().includes(needle.toLowerCase());

/** Native message sources whose records are CRM-logged activity, listed but not served one by one. */
const CRM_MESSAGE_SOURCE = /_crm$/;

/**
 * The spec's "400 if the source is not supported by the endpoint" on
 * GET /v1/messages/{id} and /v1/documents/{id}. The rule chosen: the detail
 * endpoints serve records of created sources (UUIDs) and of the native
 * sources that hold the content themselves: mailboxes (`gmail`, `outlook`,
 * `zoho_mail`) for messages, `chat_upload` and `mailbox_attachment` for
 * documents. CRM-logged messages (`salesforce_crm`, `hubspot_crm`, …) and
 * documents of any other native source are listed but answer 400 here.
 */
export function detailUnsupported(kind: 'message' | 'document', sourceId: string): boolean {
  if (isUuid(sourceId)) return false;
  if (kind === 'message') return CRM_MESSAGE_SOURCE.test(sourceId);
  return !(NATIVE_DOCUMENT_SOURCES as readonly string[]).includes(sourceId);
}

/**
 * The message or document `id` names, for its detail endpoint: 404 when the
 * org cannot see it, 400 when its source's detail is not served here.
 */
export function detailRecord<K extends 'message' | 'document'>(ctx: RequestContext, kind: K, id: string): StoredRecord<K> {
  const record = isUuid(id) ? ctx.app.store.records.findVisible(ctx.principal.orgId, kind, id) : undefined;
  if (!record) throw notFound(`${kind} ${id} not found`);
  if (detailUnsupported(kind, record.sourceId)) {
    throw validation(`${kind} ${id} comes from ${record.sourceId}, whose ${kind}s this endpoint does not serve; list them with GET /v1/${kind}s?sourceId=${record.sourceId}`);
  }
  return record;
}
