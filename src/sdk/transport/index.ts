/**
 * The one HTTP transport every request of ferry goes through (see
 * transport.ts), and its parts: the circuit breaker, the origin policy, the
 * token bucket and the wire.
 */
export * from './transport.js';
export * from './breaker.js';
export * from './service-health.js';
export * from './origins.js';
export * from './token-bucket.js';
export * from './control/request-control.js';
export { bodyText, fetchWire, readCapped, ResponseTooLarge } from './wire.js';
export type { AnswerHeaders, FetchFunction, Wire, WireAnswer, WireLimits, WireRequest } from './wire.js';
