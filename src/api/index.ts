/** The service interface: schemas, the endpoint table and the typed client. */
export * from './schemas/index.js';
export * from './endpoints.js';
export * from './timestamp.js';
export * from './client.js';
export * from './service-error.js';
export { DEFAULT_RETRY, backoffDelay, isRetryableStatus, networkErrorCode, parseRetryAfter, retryDelay } from '../sdk/http-retry.js';
export type { RetryPolicy } from '../sdk/http-retry.js';
export { paginate } from './pagination.js';
export type { PageLike } from './pagination.js';
export { redact } from '../sdk/redact.js';
