/**
 * What a failed service call turns into: a {@link ServiceError} carrying the
 * status and the service's own error body, classified onto ferry's error codes
 * so the sink and the CLI can decide between retry, dead-letter and stop.
 */
import { FerryError } from '../sdk/errors.js';
import type { ErrorCode } from '../sdk/errors.js';
import { messageErrorBody, structuredErrorBody, validationErrorBody } from './schemas/errors.js';
import { isRetryableStatus } from '../sdk/http-retry.js';

export interface ServiceErrorInit {
  endpoint: string;
  status: number;
  /** The service's code (`detail.error`), e.g. `validation_error`. */
  serviceCode?: string | undefined;
  field?: string | undefined;
  requestId?: string | undefined;
  /** The parsed error body (or the raw text when it is not JSON). */
  body?: unknown;
  attempts?: number;
  /** The answer's Retry-After hint in ms, for callers that retry themselves (`retry: false`). */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/** An HTTP answer the client could not turn into a result. */
export class ServiceError extends FerryError {
  readonly status: number;
  readonly serviceCode: string | undefined;
  readonly field: string | undefined;
  readonly requestId: string | undefined;
  readonly body: unknown;
  readonly endpoint: string;
  readonly retryAfterMs: number | undefined;

  constructor(code: ErrorCode, message: string, init: ServiceErrorInit, hint?: string) {
    // An answer's error: its stack would show only the client's plumbing, and capturing it was the largest cost of a 429.
    super(code, message, {
      hint,
      stack: false,
      cause: init.cause,
      details: {
        endpoint: init.endpoint,
        status: init.status,
        ...(init.serviceCode === undefined ? {} : { serviceCode: init.serviceCode }),
        ...(init.field === undefined ? {} : { field: init.field }),
        ...(init.requestId === undefined ? {} : { requestId: init.requestId }),
        ...(init.attempts === undefined ? {} : { attempts: init.attempts }),
      },
    });
    this.name = 'ServiceError';
    this.status = init.status;
    this.serviceCode = init.serviceCode;
    this.field = init.field;
    this.requestId = init.requestId;
    this.body = init.body;
    this.endpoint = init.endpoint;
    this.retryAfterMs = init.retryAfterMs;
  }

  /**
   * True when repeating the same request cannot succeed (a 4xx other than
   * 408/409/429): the record belongs in the dead-letter, not in a retry.
   */
  get permanent(): boolean {
    return this.status >= 400 && !isRetryableStatus(this.status);
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      serviceCode: this.serviceCode,
      field: this.field,
      requestId: this.requestId,
      endpoint: this.endpoint,
      body: this.body,
      hint: this.hint,
    };
  }
}

/** The parts of an error body ferry reports, whichever of the spec's three shapes it has. */
export interface ErrorBodyFacts {
  message: string | undefined;
  serviceCode: string | undefined;
  field: string | undefined;
  requestId: string | undefined;
}

const NO_FACTS: ErrorBodyFacts = { message: undefined, serviceCode: undefined, field: undefined, requestId: undefined };

/** Read an error body: structured `{detail: {...}}`, `{detail: "..."}` or a 422 list. */
export function errorBodyFacts(body: unknown): ErrorBodyFacts {
  const structured = structuredErrorBody.safeParse(body);
  if (structured.success) {
    const d = structured.data.detail;
    return { message: d.message, serviceCode: d.error, field: d.field ?? undefined, requestId: d.request_id };
  }
  const plain = messageErrorBody.safeParse(body);
  if (plain.success) return { ...NO_FACTS, message: plain.data.detail };
  const list = validationErrorBody.safeParse(body);
  if (list.success) {
    const items = list.data.detail;
    // `loc` starts with where the value was (`query`, `body`); the rest is the field.
    const fieldOf = (loc: readonly (string | number)[]) => loc.slice(loc[0] === 'query' || loc[0] === 'body' || loc[0] === 'path' ? 1 : 0).join('.');
    const message = items.map((i) => `${fieldOf(i.loc) || '(request)'}: ${i.msg}`).join('; ');
    const first = items[0];
    return { ...NO_FACTS, message, field: first ? fieldOf(first.loc) || undefined : undefined };
  }
  return NO_FACTS;
}

/** The ferry error code of a final failing status. */
export function codeForStatus(status: number): ErrorCode {
  if (status === 401 || status === 403) return 'FERRY_SERVICE_AUTH';
  if (status >= 400 && status < 500 && !isRetryableStatus(status)) return 'FERRY_RECORD_REJECTED';
  return 'FERRY_SERVICE_ERROR';
}

function hintForStatus(status: number): string | undefined {
  if (status === 401) return 'the API key is invalid or revoked; create a new key and set service.apiKey';
  if (status === 403) return 'the API key lacks the scope this endpoint needs (read, ingest or ask_assistant)';
  if (status === 429) return 'the service kept rate-limiting; lower service.maxRequestsPerSecond or concurrency';
  if (status >= 500) return 'the service kept failing; try again later';
  return undefined;
}

/** Build the error for a non-2xx answer that will not be retried (any more). */
export function serviceErrorFromResponse(init: {
  endpoint: string;
  status: number;
  body: unknown;
  attempts: number;
  retryAfterMs?: number | undefined;
}): ServiceError {
  const facts = errorBodyFacts(init.body);
  const text = facts.message ?? (typeof init.body === 'string' && init.body.trim() !== '' ? init.body.trim().slice(0, 300) : undefined);
  const retriedNote = isRetryableStatus(init.status) && init.attempts > 1 ? ` after ${init.attempts} attempts` : '';
  const message = `${init.endpoint}: HTTP ${init.status}${text ? ` ${text}` : ''}${retriedNote}`;
  return new ServiceError(
    codeForStatus(init.status),
    message,
    {
      endpoint: init.endpoint,
      status: init.status,
      serviceCode: facts.serviceCode,
      field: facts.field,
      requestId: facts.requestId,
      body: init.body,
      attempts: init.attempts,
      retryAfterMs: init.retryAfterMs,
    },
    hintForStatus(init.status),
  );
}
