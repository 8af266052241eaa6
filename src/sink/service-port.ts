/**
 * The narrow slice of the service the sink needs, and how the sink reads the
 * errors it throws. The typed client (`src/api/client.ts`) satisfies this
 * structurally; tests use an in-memory fake. Keeping the port small lets the
 * sink be tested without HTTP and keeps it independent of client internals.
 */
import { errorBodyFacts } from '../api/service-error.js';
import type { RequestControl } from '../sdk/transport/control/request-control.js';
import type { ServiceHealth } from '../sdk/transport/service-health.js';
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
 * Per-call options. The pusher passes its push's ServiceHealth as `retry`:
 * the transport retries record pushes under the push's policy and the health
 * view all its requests share (src/sdk/transport/service-health.ts), every
 * attempt admitted by `control`.
 */
export interface SinkCallOptions {
  signal?: AbortSignal;
  retry?: false | ServiceHealth;
  /** The body's JSON text, already made (see `RequestOptions.json`): sent as is. */
  json?: string;
  /** Stops a wait for the outage breaker (the run stopped), not a request already sent. */
  hold?: AbortSignal;
  /** Admits the attempt (adaptive concurrency and rate) on the request path. */
  control?: RequestControl;
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

// What a failure means (retry, dead-letter, stop) is the SDK's one retry policy.
export { classifyFailure } from '../sdk/http-retry.js';
export type { FailureClass } from '../sdk/http-retry.js';

/** HTTP status carried by a service error (`ServiceError.status` or the fake's), if any. */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && Number.isInteger(status) ? status : undefined;
}

/** Body of a service error: `ServiceError.body` or the fake's. */
export function errorBodyOf(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return undefined;
  return (error as { body?: unknown }).body;
}

/**
 * One line for the dead-letter: `<status> <error>: <message> (field <field>, request <id>)`,
 * leaving out what the body does not say.
 */
export function rejectionReason(status: number | null, error: unknown): string {
  const d = errorBodyFacts(errorBodyOf(error));
  const head = [status === null ? undefined : String(status), d.serviceCode].filter(Boolean).join(' ');
  const fallback = error instanceof Error ? error.message : String(error);
  const message = d.message ?? fallback;
  const extras = [d.field ? `field ${d.field}` : undefined, d.requestId ? `request ${d.requestId}` : undefined].filter(Boolean);
  return `${head ? `${head}: ` : ''}${message}${extras.length ? ` (${extras.join(', ')})` : ''}`;
}
