/** Reverse exports: the service's read side → destinations (files, tables). */
export { runExports } from './run-exports.js';
export type { ExportsRunOptions } from './run-exports.js';
export { runExport, exportStateKey, DEFAULT_BATCH_SIZE, DEFAULT_DETAIL_CONCURRENCY } from './run-export.js';
export type { ExportRunOptions, ExportStatus, ExportSummary } from './run-export.js';
export { inspectExport, selectExports, destinationOptions } from './prepare.js';
export type { PreparedExport } from './prepare.js';
export { RESOURCES, PAGE_SIZE } from './resources.js';
export type { ExportItem, ExportResource, ExportService, ResourceSpec } from './resources.js';
export { checkFilters, resolveFilters } from './filters.js';
export { Watermark } from './watermark.js';
