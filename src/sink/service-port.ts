/**
 * The narrow slice of the service the sink needs, and how the sink reads the
 * errors it throws. The typed client (`src/api/client.ts`) satisfies this
 * structurally; tests use an in-memory fake. Keeping the port small lets the
 * sink be tested without HTTP and keeps it independent of client internals.
 */
import { isFerryError } from '../sdk/errors.js';
import { isRetryableStatus, networkErrorCode, parseRetryAfter } from '../api/retry.js';
import type { RecordKeyQuery, ObjectTypeListQuery, SourceListQuery } from '../api/schemas/query.js';
import type {
  DeletedRecordResponse,
  ObjectTypeResponse,
  RecordResponse,
  SourceResponse,
} from '../api/schemas/read.js';
import type {
  ConversationRequest,
  CreateObjectTypeRequest,
  CreateSourceRequest,
  DocumentRequest,
  MessageRequest,
  RowRequest,
  UpdateObjectTypeRequest,
} from '../api/schemas/write.js';

/**
 * Per-call options. The pusher passes `retry: false`: it owns retries for
 * record pushes so that a 429 can slow every request down (AIMD, Retry-After),
 * not just the one that was refused, and so attempts are never multiplied.
 */
export interface SinkCallOptions {
  signal?: AbortSignal;
  retry?: false;
}

export interface SinkService {
  listSources(query: SourceListQuery, options?: SinkCallOptions): Promise<{ sources: SourceResponse[] }>;
  createSource(body: CreateSourceRequest, options?: SinkCallOptions): Promise<SourceResponse>;
  listObjectTypes(query: ObjectTypeListQuery, options?: SinkCallOptions): Promise<{ objectTypes: ObjectTypeResponse[] }>;
  createObjectType(body: CreateObjectTypeRequest, options?: SinkCallOptions): Promise<ObjectTypeResponse>;
  updateObjectType(id: string, body: UpdateObjectTypeRequest, options?: SinkCallOptions): Promise<ObjectTypeResponse>;

  createConversation(body: ConversationRequest, options?: SinkCallOptions): Promise<RecordResponse>;
  createMessage(body: MessageRequest, options?: SinkCallOptions): Promise<RecordResponse>;
  createRow(body: RowRequest, options?: SinkCallOptions): Promise<RecordResponse>;
  createDocument(body: DocumentRequest, options?: SinkCallOptions): Promise<RecordResponse>;

  deleteConversation(query: RecordKeyQuery, options?: SinkCallOptions): Promise<DeletedRecordResponse>;
  deleteMessage(query: RecordKeyQuery, options?: SinkCallOptions): Promise<DeletedRecordResponse>;
  deleteRow(query: RecordKeyQuery, options?: SinkCallOptions): Promise<DeletedRecordResponse>;
  deleteDocument(query: RecordKeyQuery, options?: SinkCallOptions): Promise<DeletedRecordResponse>;
}

export type RecordKind = 'conversation' | 'message' | 'row' | 'document';

/**
 * What a failed call means for the sink, decided in this one place:
 * - `auth`: 401/403, every later request would fail too; stop the run.
 * - `permanent`: the service rejected this request for good; dead-letter it.
 * - `transient`: network failure, 408, 409, 429, 5xx; retry with backoff.
 * - `fatal`: anything else (an unexpected status, an abort, a bug); rethrow.
 */
export type FailureClass =
  | { kind: 'auth'; status: number }
  | { kind: 'permanent'; status: number | null }
  | { kind: 'transient'; status: number | null; retryAfterMs: number | undefined }
  | { kind: 'fatal' };

/** HTTP status carried by a service error (`ServiceError.status` or the fake's), if any. */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && Number.isInteger(status) ? status : undefined;
}

/**
 * The server's Retry-After hint in milliseconds. Errors may carry it parsed
 * (`retryAfterMs`) or raw (`retryAfter`: delay-seconds or an HTTP-date).
 * Zero, negative, past or unparseable values carry no hint (retrying at once would spin).
 */
export function retryAfterOf(error: unknown, now: number): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const parsed = (error as { retryAfterMs?: unknown }).retryAfterMs;
  if (typeof parsed === 'number' && Number.isFinite(parsed)) return parsed > 0 ? parsed : undefined;
  const raw = (error as { retryAfter?: unknown }).retryAfter;
  return typeof raw === 'string' ? parseRetryAfter(raw, now) : undefined;
}

/** Classify a failure of one service call (see {@link FailureClass}). */
export function classifyFailure(error: unknown, now: number): FailureClass {
  const status = statusOf(error);
  if (status !== undefined) {
    if (status === 401 || status === 403) return { kind: 'auth', status };
    if (isRetryableStatus(status)) return { kind: 'transient', status, retryAfterMs: retryAfterOf(error, now) };
    if (status >= 400 && status < 500) return { kind: 'permanent', status };
    return { kind: 'fatal' };
  }
  // The client's own verdicts for failures without an HTTP answer.
  if (isFerryError(error, 'FERRY_SERVICE_UNREACHABLE')) return { kind: 'transient', status: null, retryAfterMs: undefined };
  if (isFerryError(error, 'FERRY_BODY_TOO_LARGE')) return { kind: 'permanent', status: null };
  if (isFerryError(error, 'FERRY_SERVICE_AUTH')) return { kind: 'auth', status: 401 };
  if (networkErrorCode(error) !== undefined) return { kind: 'transient', status: null, retryAfterMs: undefined };
  return { kind: 'fatal' };
}

/** The service's structured error facts (`{detail: {error, message, field, request_id}}`), read loosely. */
export interface ErrorDetail {
  error?: string;
  message?: string;
  field?: string;
  requestId?: string;
}

/** Body of a service error: `ServiceError.body` or the fake's. */
export function errorBodyOf(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return undefined;
  return (error as { body?: unknown }).body;
}

export function errorDetail(body: unknown): ErrorDetail {
  if (typeof body !== 'object' || body === null) return {};
  const detail = (body as { detail?: unknown }).detail;
  if (typeof detail === 'string') return { message: detail };
  if (Array.isArray(detail)) {
    const parts = detail.map((d: unknown) => {
      const item = (d ?? {}) as { loc?: unknown; msg?: unknown };
      const loc = Array.isArray(item.loc) ? item.loc.join('.') : '';
      return `${loc}: ${typeof item.msg === 'string' ? item.msg : ''}`;
    });
    return { message: parts.join('; ') };
  }
  if (typeof detail !== 'object' || detail === null) return {};
  const d = detail as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const out: ErrorDetail = {};
  const e = str(d.error);
  const m = str(d.message);
  const f = str(d.field);
  const r = str(d.request_id);
  if (e) out.error = e;
  if (m) out.message = m;
  if (f) out.field = f;
  if (r) out.requestId = r;
  return out;
}

/**
 * One line for the dead-letter: `<status> <error>: <message> (field <field>, request <id>)`,
 * leaving out what the body does not say.
 */
export function rejectionReason(status: number | null, error: unknown): string {
  const body = errorBodyOf(error);
  const d = errorDetail(body);
  const head = [status === null ? undefined : String(status), d.error].filter(Boolean).join(' ');
  const fallback = error instanceof Error ? error.message : String(error);
  const message = d.message ?? fallback;
  const extras = [d.field ? `field ${d.field}` : undefined, d.requestId ? `request ${d.requestId}` : undefined].filter(Boolean);
  return `${head ? `${head}: ` : ''}${message}${extras.length ? ` (${extras.join(', ')})` : ''}`;
}
