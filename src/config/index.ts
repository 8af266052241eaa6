/** Loading and validating ferry.yaml and its includes. */
export { loadConfig } from './load.js';
export type { LoadConfigOptions } from './load.js';
export { validateWith } from './validate.js';
export { formatConfigIssues, formatPath, prepareAll } from './issues.js';
export type { ConfigIssue, SourcePosition } from './issues.js';
export type { LoadedConfig, LoadedExport, LoadedSync, Located, ResolvedSync } from './types.js';
export { withTargetDefaults } from './target-defaults.js';
export { configJsonSchema } from './json-schema.js';
export * from './schema.js';
