/** The sink: target setup, schema evolution and the push queue. */
export { ensureTarget, findObjectType, findSource, PLANNED_ID } from './ensure-target.js';
export type { EnsureTargetConfig, EnsureTargetOptions, EnsuredTarget, SchemaChange } from './ensure-target.js';
export { MAX_FIELDS } from './field-schema.js';
export type { FieldChange, TargetObjectType } from './field-schema.js';
export { ObjectTypeEvolver } from './object-type-evolver.js';
export type { EvolverOptions, InferFieldType, NewFieldsPolicy, ResolvedFields } from './object-type-evolver.js';
export { describeLimits, Pusher, pushLimits } from './pusher.js';
export type { DeleteJob, DeleteOutcome, LearntLimits, PushJob, PushLimits, PushOutcome, PushRejection, PusherOptions, PusherStats, RateReason, SinkLogger } from './pusher.js';
export type { ConcurrencyReason } from '../sdk/transport/control/concurrency-limit.js';
export { AdaptiveRateLimiter } from '../sdk/transport/control/rate-limiter.js';
export type { AdaptiveRateOptions } from '../sdk/transport/control/rate-limiter.js';
export { systemClock } from '../sdk/clock.js';
export type { Clock } from '../sdk/clock.js';
export { classifyFailure, rejectionReason, statusOf } from './service-port.js';
export type { FailureClass, RecordKind, SinkCallOptions, SinkService } from './service-port.js';
