/**
 * zod's issues, turned into ConfigIssues a user can act on: a position in
 * the file, the key path, what was expected and a short rendering of what
 * was found. Works for ferry's own schema and for connector option schemas.
 */
import { z } from 'zod';
import type { ConfigIssue, SourcePosition } from './issues.js';
import { formatPath } from './issues.js';
import { describeType, renderFound } from './render.js';
import { closest } from './suggest.js';
import type { KeyPath } from './yaml-source.js';

type ZodIssue = z.core.$ZodIssue;

export interface IssueContext {
  /** The schema `value` was validated with; used to list known keys. */
  schema: z.core.$ZodType;
  /** The value as validated (after interpolation). */
  value: unknown;
  /** Where `value` sits in its file. */
  basePath: KeyPath;
  /** Position of a full key path; `atKey` points at the key rather than its value. */
  locate(path: KeyPath, atKey?: boolean): SourcePosition;
}

/** Convert every zod issue; one zod issue may give several (one per unknown key). */
export function toConfigIssues(issues: readonly ZodIssue[], context: IssueContext): ConfigIssue[] {
  return issues.flatMap((issue) => convert(issue, [], context));
}

function keyPath(path: readonly PropertyKey[]): (string | number)[] {
  return path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
}

function valueAt(root: unknown, path: KeyPath): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

function hasPath(root: unknown, path: KeyPath): boolean {
  if (path.length === 0) return true;
  const parent = valueAt(root, path.slice(0, -1));
  const last = path[path.length - 1];
  return parent !== null && typeof parent === 'object' && last !== undefined && Object.hasOwn(parent, last);
}

function convert(issue: ZodIssue, prefix: KeyPath, context: IssueContext): ConfigIssue[] {
  const relative = [...prefix, ...keyPath(issue.path)];
  const full = [...context.basePath, ...relative];
  const value = valueAt(context.value, relative);
  const present = hasPath(context.value, relative);
  const at = (path: KeyPath = full, atKey = false) => context.locate(path, atKey);
  const make = (message: string, facts: { expected?: string; found?: string } = {}): ConfigIssue => ({
    ...at(),
    path: formatPath(full),
    message,
    ...(facts.expected === undefined ? {} : { expected: facts.expected }),
    ...(facts.found === undefined ? {} : { found: facts.found }),
  });
  const found = () => renderFound(value, full);

  switch (issue.code) {
    case 'invalid_type': {
      if (!present || value === undefined) {
        const name = relative[relative.length - 1];
        return [make(`missing required key "${String(name)}"`, { expected: describeType(issue.expected) })];
      }
      return [make(wrongTypeMessage(issue.expected, value), { expected: describeType(issue.expected), found: found() })];
    }
    case 'unrecognized_keys': {
      const known = knownKeys(context.schema, relative).filter((key) => !issue.keys.includes(key));
      return issue.keys.map((key) => {
        const keyFull = [...full, key];
        const suggestion = closest(key, known);
        const message = suggestion ? `unknown key "${key}" (did you mean "${suggestion}"?)` : `unknown key "${key}"`;
        return {
          ...at(keyFull, true),
          path: formatPath(keyFull),
          message,
          ...(known.length > 0 && !suggestion ? { expected: `one of ${known.join(', ')}` } : {}),
        };
      });
    }
    case 'invalid_value': {
      const expected = issue.values.map((allowed) => JSON.stringify(allowed)).join(' | ');
      if (!present || value === undefined) {
        return [make(`missing required key "${String(relative[relative.length - 1])}"`, { expected })];
      }
      const suggestion =
        typeof value === 'string' ? closest(value, issue.values.filter((v): v is string => typeof v === 'string')) : undefined;
      const message = suggestion ? `unknown value (did you mean "${suggestion}"?)` : 'not an allowed value';
      return [make(message, { expected, found: found() })];
    }
    case 'too_small':
      return [make(sizeMessage(issue.origin, issue.minimum, issue.inclusive !== false, 'min', issue.exact === true), { found: found() })];
    case 'too_big':
      return [make(sizeMessage(issue.origin, issue.maximum, issue.inclusive !== false, 'max', issue.exact === true), { found: found() })];
    case 'not_multiple_of':
      return [make(`must be a multiple of ${issue.divisor}`, { found: found() })];
    case 'invalid_format':
      return [make(issue.message, { found: found() })];
    case 'invalid_union':
      return convertUnion(issue, relative, value, context, make, found);
    case 'invalid_key':
      return [make(`invalid key: ${issue.issues.map((inner) => inner.message).join('; ')}`)];
    case 'invalid_element':
      return issue.issues.flatMap((inner) => convert(inner, relative, context));
    case 'custom':
      return [make(issue.message, present && value !== undefined ? { found: found() } : {})];
    default:
      return [make((issue as { message: string }).message)];
  }
}

/** A number or boolean written as a string is the usual surprise after `${VAR}`: say why. */
function wrongTypeMessage(expected: string, value: unknown): string {
  if (typeof value !== 'string') return 'wrong type';
  const looksNumeric = /^-?\d+(\.\d+)?$/.test(value.trim());
  const looksBoolean = value === 'true' || value === 'false';
  if (((expected === 'number' || expected === 'int') && looksNumeric) || (expected === 'boolean' && looksBoolean)) {
    return 'wrong type: quoted values and ${VAR} substitutions are strings here; write the value unquoted';
  }
  return 'wrong type';
}

function sizeMessage(origin: string, limit: number | bigint, inclusive: boolean, side: 'min' | 'max', exact: boolean): string {
  const n = Number(limit);
  const unit = origin === 'string' ? 'character' : origin === 'array' || origin === 'set' ? 'item' : undefined;
  if (unit) {
    const count = `${n} ${unit}${n === 1 ? '' : 's'}`;
    if (exact) return `must have exactly ${count}`;
    if (side === 'min' && n === 1) return 'must not be empty';
    return side === 'min' ? `must have at least ${count}` : `must have at most ${count}`;
  }
  // Integers past Number.MAX_SAFE_INTEGER are a zod detail, not a user limit.
  if (side === 'max' && n >= Number.MAX_SAFE_INTEGER) return `must be at most ${Number.MAX_SAFE_INTEGER}`;
  const op = side === 'min' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
  return `must be ${op} ${n}`;
}

/**
 * A union failed: when the value's type fits one branch only, report that
 * branch's own problems (say, an unknown key in the object form); otherwise
 * list the forms the union accepts.
 */
function convertUnion(
  issue: Extract<ZodIssue, { code: 'invalid_union' }>,
  relative: KeyPath,
  value: unknown,
  context: IssueContext,
  make: (message: string, facts?: { expected?: string; found?: string }) => ConfigIssue,
  found: () => string,
): ConfigIssue[] {
  const branches = issue.errors;
  // A discriminated union whose tag matched no option reports no branches,
  // only the allowed tag values: say what they are.
  const options = (issue as { options?: readonly unknown[] }).options;
  if (branches.length === 0 && options && options.length > 0) {
    const allowed = options.map((o) => JSON.stringify(o)).join(' | ');
    return [make(`not an allowed value; expected one of ${allowed}`, { expected: allowed, found: found() })];
  }
  const fitting = branches.filter((branch) => branch.every((inner) => !isTypeMismatch(inner, value)));
  const only = fitting[0];
  if (fitting.length === 1 && only) return only.flatMap((inner) => convert(inner, relative, context));
  const forms = new Set<string>();
  for (const branch of branches) {
    for (const inner of branch) {
      if (inner.path.length > 0) continue;
      if (inner.code === 'invalid_type') forms.add(describeType(inner.expected));
      if (inner.code === 'invalid_value') forms.add(inner.values.map((v) => JSON.stringify(v)).join(' | '));
    }
  }
  const expected = forms.size > 0 ? [...forms].join(' or ') : undefined;
  if (value === undefined) return [make(`missing required key "${String(relative[relative.length - 1])}"`, expected ? { expected } : {})];
  return [make('wrong type', { ...(expected ? { expected } : {}), found: found() })];
}

/** An issue saying the value is the wrong kind of thing for this branch as a whole. */
function isTypeMismatch(issue: ZodIssue, value: unknown): boolean {
  if (issue.path.length > 0) return false;
  if (issue.code === 'invalid_type') return true;
  // An enum or literal branch does not fit a mapping or a list at all.
  if (issue.code === 'invalid_value') return typeof value === 'object' && value !== null;
  if (issue.code === 'invalid_union') return issue.errors.every((branch) => branch.some((inner) => isTypeMismatch(inner, value)));
  return false;
}

/** The keys an object schema at `path` (relative to `schema`) accepts, for suggestions. */
export function knownKeys(schema: z.core.$ZodType, path: KeyPath): string[] {
  const keys = new Set<string>();
  for (const candidate of schemasAt(schema, path, 0)) {
    if (candidate instanceof z.ZodObject) for (const key of Object.keys(candidate.shape)) keys.add(key);
  }
  return [...keys];
}

function unwrap(schema: z.core.$ZodType, depth: number): z.core.$ZodType[] {
  if (depth > 32) return [];
  if (
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodNullable ||
    schema instanceof z.ZodDefault ||
    schema instanceof z.ZodPrefault ||
    schema instanceof z.ZodReadonly ||
    schema instanceof z.ZodCatch ||
    schema instanceof z.ZodLazy
  ) {
    return unwrap(schema.unwrap(), depth + 1);
  }
  if (schema instanceof z.ZodPipe) return unwrap(schema.in, depth + 1);
  if (schema instanceof z.ZodUnion) return schema.options.flatMap((option: z.core.$ZodType) => unwrap(option, depth + 1));
  return [schema];
}

function schemasAt(schema: z.core.$ZodType, path: KeyPath, depth: number): z.core.$ZodType[] {
  const here = unwrap(schema, depth);
  if (path.length === 0) return here;
  const [head, ...rest] = path;
  const next: z.core.$ZodType[] = [];
  for (const candidate of here) {
    if (candidate instanceof z.ZodObject && typeof head === 'string') {
      const child = (candidate.shape as Record<string, z.core.$ZodType | undefined>)[head];
      if (child) next.push(child);
    } else if (candidate instanceof z.ZodArray && typeof head === 'number') {
      next.push(candidate.element);
    } else if (candidate instanceof z.ZodRecord) {
      next.push(candidate.valueType);
    }
  }
  return next.flatMap((child) => schemasAt(child, rest, depth + 1));
}
