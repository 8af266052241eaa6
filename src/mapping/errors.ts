import { FerryError } from '../sdk/errors.js';

/** A location under `map:`, e.g. `['fields', 'amount']`. */
export type MapPath = (string | number)[];

/** `map.fields.amount`, the way users see a key path in ferry.yaml. */
export function formatMapPath(path: readonly (string | number)[]): string {
  return ['map', ...path].join('.');
}

export interface MappingIssue {
  path: MapPath;
  message: string;
}

/**
 * A record whose expressions failed to evaluate (a JSONata type error, a
 * function where a value was expected). Record-level: the caller dead-letters
 * the record and the run goes on.
 */
export class MappingEvaluationError extends FerryError {
  /** Map path of the first failing expression. */
  readonly path: MapPath;
  readonly issues: readonly MappingIssue[];
  /** What the other expressions produced (the id, say), for the dead-letter entry. */
  readonly partial: Record<string, unknown> | undefined;

  constructor(issues: readonly MappingIssue[], partial?: Record<string, unknown>) {
    const first = issues[0] ?? { path: [], message: 'mapping failed' };
    super('FERRY_RECORD_INVALID', issues.map((i) => `${formatMapPath(i.path)}: ${i.message}`).join('; '), {
      details: { field: formatMapPath(first.path) },
    });
    this.name = 'MappingEvaluationError';
    this.path = first.path;
    this.issues = issues;
    this.partial = partial;
  }
}
