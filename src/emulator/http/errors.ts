/**
 * Errors a handler throws and how they are written. The body depends on the
 * method, as in the service: POST/PATCH/DELETE answer
 * `{detail: {error, message, field, request_id}}`, GET answers
 * `{detail: "<message>"}`, and bad list query parameters answer 422
 * `{detail: [{loc, msg, type}]}`.
 */
import type { z } from 'zod';
import type { ServiceErrorCode } from '../../api/schemas/errors.js';
import { issuePath } from '../../api/schemas/errors.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ServiceErrorCode | null,
    message: string,
    readonly field: string | null = null,
    /** Always answer `{detail: message}` whatever the method (auth failures, 401/429/500). */
    readonly plain = false,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const validation = (message: string, field: string | null = null) => new ApiError(400, 'validation_error', message, field);
export const notFound = (message: string, field: string | null = null) => new ApiError(404, 'not_found', message, field);
export const conflict = (message: string, field: string | null = null) => new ApiError(409, 'conflict', message, field);
export const forbidden = (message: string, field: string | null = null) => new ApiError(403, 'forbidden', message, field);

export interface QueryIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** 422 with a FastAPI-style list of issues; used for query parameters of GET endpoints. */
export class QueryValidationError extends Error {
  constructor(readonly issues: QueryIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.name = 'QueryValidationError';
  }
}

const ISSUE_TYPES: Record<string, string> = {
  too_small: 'greater_than_equal',
  too_big: 'less_than_equal',
  invalid_type: 'type_error',
  invalid_format: 'string_pattern_mismatch',
  invalid_value: 'enum',
};

export function queryIssues(error: z.ZodError): QueryIssue[] {
  return error.issues.map((issue) => ({
    loc: ['query', ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
    msg: issue.message,
    type: ISSUE_TYPES[issue.code] ?? 'value_error',
  }));
}

/** The first zod issue as a 400 validation_error naming the offending field. */
export function bodyValidationError(error: z.ZodError, prefix: readonly PropertyKey[] = []): ApiError {
  const issue = error.issues[0];
  if (!issue) return validation('invalid request body');
  const field = issuePath([...prefix, ...issue.path]);
  return validation(field ? `${field}: ${issue.message}` : issue.message, field);
}

export function errorBody(error: ApiError, method: string, requestId: string): unknown {
  const structured = !error.plain && error.code !== null && method !== 'GET' && method !== 'HEAD';
  if (!structured) return { detail: error.message };
  return { detail: { error: error.code, message: error.message, field: error.field, request_id: requestId } };
}
