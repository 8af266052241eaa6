import type { RecordOrigin } from './types.js';

/**
 * Render an origin for humans: `data/deals.csv:42`, `public.deals key=17`,
 * or a URL.
 */
export function formatOrigin(origin: RecordOrigin): string {
  if (origin.file !== undefined) {
    return origin.line === undefined ? origin.file : `${origin.file}:${origin.line}`;
  }
  if (origin.table !== undefined) {
    return origin.key === undefined ? origin.table : `${origin.table} key=${origin.key}`;
  }
  if (origin.url !== undefined) return origin.url;
  return origin.stream ?? '(unknown origin)';
}
