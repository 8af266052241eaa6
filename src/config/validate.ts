/** Validating any value found in a config file, with positions in the errors. */
import type { z } from 'zod';
import type { ConfigIssue } from './issues.js';
import type { Located } from './types.js';
import { toConfigIssues } from './zod-issues.js';

/**
 * Validate `value` (found at `basePath` under a sync or export, e.g.
 * `['source']`) with `schema`, and report each problem at its place in the
 * file. Used for connector options, which ferry's own schema passes through.
 * Returns no issues when the value is valid.
 */
export function validateWith(
  schema: z.core.$ZodType,
  value: unknown,
  located: Located,
  basePath: readonly (string | number)[],
): ConfigIssue[] {
  const result = (schema as z.ZodType).safeParse(value);
  if (result.success) return [];
  const prefix = located.keyPath;
  return toConfigIssues(result.error.issues, {
    schema,
    value,
    basePath: [...prefix, ...basePath],
    locate: (full, atKey) => ({ file: located.file, ...position(located, full.slice(prefix.length), atKey) }),
  });
}

function position(located: Located, path: readonly (string | number)[], atKey: boolean | undefined) {
  const { line, column } = located.locate(path, { atKey: atKey === true });
  return { line, column };
}
