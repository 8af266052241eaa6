/**
 * The connector author's kit: everything a built-in connector or a plugin
 * imports. Nothing here depends on the rest of ferry.
 */
export * from './types.js';
export * from './define.js';
export * from './errors.js';
export * from './origin.js';
export * from './cursor.js';
export * from './http-retry.js';
export * from './transport/index.js';
// Not clearSecrets: forgetting the config's secrets is for ferry's own tests, never for a plugin.
export { REDACTED, Redactor, isSecretName, isSecretPath, passwordOf, redact, redactError, redactSecrets, redactUrl, redactValue, registerSecret } from './redact.js';
export * from './clock.js';
export * from './guards.js';
export * from './conformance.js';
export * from './partition.js';
export * from './chunks.js';
export * from './module-worker.js';
export { SERVICE_RESOURCES, SERVICE_RESOURCE_NAMES } from './service-resources.js';
export type { ServiceResource, ServiceResourceName, TimeWindowFilter } from './service-resources.js';
export { canSlice, readSlicedList } from './sliced-list.js';
export type { ListAnswer, ListItem, SlicedListOptions, SlicedPage } from './sliced-list.js';
export type { ListQuery } from './list-windows.js';
export { RequestLimiter } from './request-limiter.js';
