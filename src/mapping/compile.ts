/**
 * Compile a `map:` spec once per sync into a function from a source record
 * (or a `{ key, records }` group) to a plain object the request builder takes.
 */
import type { MapSpec, MapValue } from '../config/schema.js';
import { ExpressionSyntaxError, compileExpression, describeJsonataError } from './expression.js';
import type { CompiledExpression } from './expression.js';
import { MappingEvaluationError } from './errors.js';
import type { MapPath, MappingIssue } from './errors.js';
import { toJsonSafe } from './json-safe.js';

export interface CompileError {
  /** Path under `map`, e.g. `['fields', 'amount']`. */
  path: MapPath;
  message: string;
}

export interface CompileOptions {
  /**
   * Treat an empty string read straight from a field (the fast path: `amount`,
   * `` `close value` ``, `a.b`) as missing, so a blank CSV cell leaves the
   * target field out. JSONata expressions keep whatever they return.
   * @default true
   */
  blankAsMissing?: boolean;
}

export interface CompiledMapping {
  /**
   * Map one input. Fields whose expression yields nothing are left out;
   * null stays null. Rejects with {@link MappingEvaluationError} naming every
   * failing expression's map path.
   */
  evaluate(input: unknown): Promise<Record<string, unknown>>;
  /** Top-level target fields the spec sets. */
  fieldNames(): string[];
  /** Keys of `map.fields` (row field names) when it is a nested mapping. */
  rowFieldNames(): string[];
}

type Node =
  | { kind: 'literal'; value: unknown }
  | { kind: 'expression'; expression: CompiledExpression }
  | { kind: 'object'; entries: [string, Node][] };

function compileValue(value: MapValue, path: MapPath, errors: CompileError[]): Node {
  if (typeof value === 'string') {
    try {
      return { kind: 'expression', expression: compileExpression(value) };
    } catch (error) {
      if (!(error instanceof ExpressionSyntaxError)) throw error;
      errors.push({ path, message: error.message });
      return { kind: 'literal', value: undefined };
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'literal', value };
  }
  // Array.isArray does not narrow readonly arrays out of the union.
  const entries: [string, Node][] = Object.entries(value as MapSpec).map(([key, child]) => [
    key,
    compileValue(child, [...path, key], errors),
  ]);
  return { kind: 'object', entries };
}

/**
 * Compile every expression of a map spec. Returns all syntax errors at once,
 * each with its path under `map`, so `ferry check` can list them together.
 */
export function compileMapping(
  spec: MapSpec,
  options: CompileOptions = {},
): { mapping: CompiledMapping } | { errors: CompileError[] } {
  const errors: CompileError[] = [];
  const root = compileValue(spec, [], errors);
  if (errors.length > 0) return { errors };
  if (root.kind !== 'object') throw new TypeError('a map spec is an object');
  const blankAsMissing = options.blankAsMissing ?? true;
  const fields = spec.fields;
  const rowFields = fields !== null && typeof fields === 'object' && !Array.isArray(fields) ? Object.keys(fields) : [];

  return {
    mapping: {
      async evaluate(input) {
        const issues: MappingIssue[] = [];
        const out = await evaluateObject(root.entries, toJsonSafe(input), [], issues, blankAsMissing);
        if (issues.length > 0) throw new MappingEvaluationError(issues, out);
        return out ?? {};
      },
      fieldNames: () => Object.keys(spec),
      rowFieldNames: () => [...rowFields],
    },
  };
}

async function evaluateObject(
  entries: readonly [string, Node][],
  input: unknown,
  path: MapPath,
  issues: MappingIssue[],
  blankAsMissing: boolean,
): Promise<Record<string, unknown> | undefined> {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const [key, node] of entries) {
    const value = await evaluateNode(node, input, [...path, key], issues, blankAsMissing);
    if (value !== undefined) {
      out[key] = value;
      any = true;
    }
  }
  // A nested mapping whose every expression yielded nothing is itself nothing,
  // so an optional `author: { email: … }` is left out rather than sent empty.
  return any || path.length === 0 ? out : undefined;
}

async function evaluateNode(
  node: Node,
  input: unknown,
  path: MapPath,
  issues: MappingIssue[],
  blankAsMissing: boolean,
): Promise<unknown> {
  switch (node.kind) {
    case 'literal':
      // Copied so a caller changing one body cannot change the next.
      return typeof node.value === 'object' && node.value !== null ? structuredClone(node.value) : node.value;
    case 'object':
      return evaluateObject(node.entries, input, path, issues, blankAsMissing);
    case 'expression': {
      const { expression } = node;
      try {
        const raw = await expression.evaluate(input);
        if (raw === '' && blankAsMissing && expression.steps !== undefined) return undefined;
        return plain(raw);
      } catch (error) {
        issues.push({
          path,
          message: error instanceof NotAValueError ? error.message : describeJsonataError(error, expression.source),
        });
        return undefined;
      }
    }
  }
}

class NotAValueError extends Error {}

/**
 * JSONata results carry internals: arrays flagged as sequences, objects
 * without a prototype, functions. Copy them into plain JSON values.
 */
function plain(value: unknown): unknown {
  if (typeof value === 'function') throw new NotAValueError('the expression yields a function, not a value');
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const converted = plain(item);
      if (converted !== undefined) out.push(converted);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const converted = plain(item);
    if (converted !== undefined) out[key] = converted;
  }
  return out;
}
