/** Source record → validated request body: compile `map:`, build, infer field types, fingerprint, group. */
export { compileMapping } from './compile.js';
export { fieldPath } from './expression.js';
export type { CompileError, CompileOptions, CompiledMapping } from './compile.js';
export { MappingEvaluationError, formatMapPath } from './errors.js';
export type { MapPath, MappingIssue } from './errors.js';
export { buildRequest } from './build.js';
export { STEPS, diff, planUnits } from './plan.js';
export type { Action, BatchFacts, Decision, Found, LedgerView, Plan, Reason, Step, TakenIds } from './plan.js';
export type { BuildContext, BuildResult, TargetKind } from './build.js';
export { coerceFieldValue } from './coerce.js';
export { inferFieldType, FieldTypeSampler } from './infer.js';
export { fingerprint, fingerprintOfJson, canonicalJson } from './fingerprint.js';
export { createGrouper, groupRecords, groupKeyOf, groupOrigin, DEFAULT_MEMORY_LIMIT_RECORDS } from './group.js';
export type { Group, GroupOptions, GroupOrigin, Grouper } from './group.js';
export { toJsonSafe } from './json-safe.js';
export { normaliseTimestamp } from './timestamps.js';
export { checkTargetFields, targetFieldNames } from './target-fields.js';
