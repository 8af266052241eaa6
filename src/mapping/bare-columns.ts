/**
 * The source columns a mapping reads by bare name (`title: Title`, or a
 * back-quoted `` `Deal Name` ``): the entries `ferry check` can compare with
 * a sample of the source, so a column the source lacks is named before a run
 * dead-letters every record for it (issue 46). An expression that computes a
 * value (`$now()`, `a & b`, a literal) is not a bare column and is left out.
 */
import type { MapSpec } from '../config/schema.js';

const BARE = /^[A-Za-z_][\w]*$|^`[^`]+`$/;
/** JSONata reads these bare words as values, not as fields. */
const LITERALS = new Set(['true', 'false', 'null']);

export interface BareColumn {
  /** Where in `map:` (`fields.amount`). */
  path: string;
  /** The source column it reads. */
  column: string;
}

/** The source column an expression reads by bare name (`title`, `` `Deal Name` ``), or undefined for any other expression. */
export function bareColumnOf(expression: string): string | undefined {
  const entry = expression.trim();
  return BARE.test(entry) && !LITERALS.has(entry) ? entry.replace(/^`|`$/g, '') : undefined;
}

export function bareColumns(map: MapSpec, prefix = ''): BareColumn[] {
  const found: BareColumn[] = [];
  for (const [key, value] of Object.entries(map)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof value === 'string') {
      const column = bareColumnOf(value);
      if (column !== undefined) found.push({ path, column });
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      found.push(...bareColumns(value as MapSpec, path));
    }
  }
  return found;
}
