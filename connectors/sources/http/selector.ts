/**
 * A small, safe subset of JSONPath for picking values out of API responses:
 * `$`, `$.data.items`, `data.items`, `$.results[*]`, `items[0].id`,
 * `$['odd key'].value`, `$.*`. No filters, no recursion, no script: a
 * selector from YAML can only walk the response, never run anything.
 */
import { isRecord } from '../../../src/sdk/index.js';

export type Segment = { kind: 'key'; name: string } | { kind: 'index'; index: number } | { kind: 'wildcard' };

export interface Selector {
  /** The text as written, for messages. */
  readonly source: string;
  readonly segments: readonly Segment[];
  /** True when a segment fans out (`[*]`, `.*`): every match is a record. */
  readonly fansOut: boolean;
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*/;

/** Parse a selector, or throw an Error whose message says where it went wrong. */
export function parseSelector(text: string): Selector {
  const source = text.trim();
  let rest = source;
  const segments: Segment[] = [];
  if (rest.startsWith('$')) rest = rest.slice(1);
  else if (rest !== '' && !rest.startsWith('[')) rest = `.${rest}`; // `data.items` means `$.data.items`
  while (rest !== '') {
    const at = source.length - rest.length;
    if (rest.startsWith('..')) {
      throw new Error(`recursive descent ".." (position ${at}) is not supported in "${source}": spell out the path`);
    } else if (rest.startsWith('.*')) {
      segments.push({ kind: 'wildcard' });
      rest = rest.slice(2);
    } else if (rest.startsWith('.')) {
      const name = IDENTIFIER.exec(rest.slice(1))?.[0];
      if (!name) throw new Error(`expected a key name after "." at position ${at + 1} of "${source}"`);
      segments.push({ kind: 'key', name });
      rest = rest.slice(1 + name.length);
    } else if (rest.startsWith('[')) {
      const close = parseBracket(rest, source, at);
      segments.push(close.segment);
      rest = rest.slice(close.length);
    } else {
      throw new Error(`unexpected "${rest[0]}" at position ${at} of "${source}" (use .key, ['key'], [n] or [*])`);
    }
  }
  return { source, segments, fansOut: segments.some((segment) => segment.kind === 'wildcard') };
}

function parseBracket(rest: string, source: string, at: number): { segment: Segment; length: number } {
  const quoted = /^\[\s*(['"])((?:\\.|(?!\1).)*)\1\s*\]/.exec(rest);
  if (quoted) return { segment: { kind: 'key', name: quoted[2]!.replace(/\\(.)/g, '$1') }, length: quoted[0].length };
  const index = /^\[\s*(-?\d+)\s*\]/.exec(rest);
  if (index) return { segment: { kind: 'index', index: Number(index[1]) }, length: index[0].length };
  const star = /^\[\s*\*\s*\]/.exec(rest);
  if (star) return { segment: { kind: 'wildcard' }, length: star[0].length };
  throw new Error(`unsupported bracket at position ${at} of "${source}" (use ['key'], [n] or [*])`);
}

/** Every value the selector reaches in `root`, in document order. Missing keys match nothing. */
export function selectAll(selector: Selector, root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const segment of selector.segments) {
    const next: unknown[] = [];
    for (const value of current) {
      if (segment.kind === 'key') {
        if (isRecord(value) && Object.hasOwn(value, segment.name)) next.push(value[segment.name]);
      } else if (segment.kind === 'index') {
        if (Array.isArray(value)) {
          const item: unknown = value.at(segment.index);
          if (item !== undefined) next.push(item);
        }
      } else if (Array.isArray(value)) {
        next.push(...(value as unknown[]));
      } else if (isRecord(value)) {
        next.push(...Object.values(value));
      }
    }
    current = next;
  }
  return current;
}

/** The first value the selector reaches, or `undefined`. */
export function selectFirst(selector: Selector, root: unknown): unknown {
  return selectAll(selector, root)[0];
}

/**
 * The records a response holds: with a fanning selector, each match; else
 * the single match's elements when it is an array, or the match itself.
 */
export function selectRecords(selector: Selector, root: unknown): unknown[] {
  const matches = selectAll(selector, root);
  if (selector.fansOut) return matches;
  const [match] = matches;
  if (match === undefined || match === null) return [];
  return Array.isArray(match) ? (match as unknown[]) : [match];
}

/**
 * A field of a record by name: the literal key when the record has it
 * (`"a.b"` as one key), else the name read as a dot path (`customer.id`).
 */
export function fieldValue(record: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(record, name)) return record[name];
  try {
    return selectFirst(parseSelector(name), record);
  } catch {
    return undefined;
  }
}
