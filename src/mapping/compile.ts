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
  /** {@link evaluate}, returning the object itself (no promise) when no JSONata expression had to run: the per-record hot path. */
  evaluateEager(input: unknown): Record<string, unknown> | Promise<Record<string, unknown>>;
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

  const evaluateEager = (input: unknown): Record<string, unknown> | Promise<Record<string, unknown>> => {
    const issues: MappingIssue[] = [];
    try {
      const out = evaluateObject(root.entries, toJsonSafe(input), [], issues, blankAsMissing);
      return out instanceof Promise ? out.then((value) => mappingResult(value, issues)) : mappingResult(out, issues);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  return {
    mapping: {
      evaluate(input) {
        const out = evaluateEager(input);
        return out instanceof Promise ? out : Promise.resolve(out);
      },
      evaluateEager,
      fieldNames: () => Object.keys(spec),
      rowFieldNames: () => [...rowFields],
    },
  };
}

type Maybe<T> = T | Promise<T>;

function mappingResult(out: Record<string, unknown> | undefined, issues: MappingIssue[]): Record<string, unknown> {
  if (issues.length > 0) throw new MappingEvaluationError(issues, out);
  return out ?? {};
}

/**
 * Evaluates in order, synchronously for as long as every value is at hand (a
 * literal, a plain field path): only a JSONata expression makes the rest
 * asynchronous. An async function per node cost a promise and a turn of the
 * microtask queue each, several per record. The map path of a node is built
 * only when it fails.
 */
function evaluateObject(
  entries: readonly [string, Node][],
  input: unknown,
  path: MapPath,
  issues: MappingIssue[],
  blankAsMissing: boolean,
): Maybe<Record<string, unknown> | undefined> {
  const out: Record<string, unknown> = {};
  const state = { any: false };
  for (let i = 0; i < entries.length; i++) {
    const [key, node] = entries[i]!;
    const value = evaluateNode(node, input, path, key, issues, blankAsMissing);
    if (value instanceof Promise) return finishObject(entries, i, value, out, state, input, path, issues, blankAsMissing);
    put(out, key, value, state);
  }
  return objectResult(out, state.any, path);
}

/** The rest of {@link evaluateObject} once entry `from` turned out asynchronous. */
async function finishObject(
  entries: readonly [string, Node][],
  from: number,
  pending: Promise<unknown>,
  out: Record<string, unknown>,
  state: { any: boolean },
  input: unknown,
  path: MapPath,
  issues: MappingIssue[],
  blankAsMissing: boolean,
): Promise<Record<string, unknown> | undefined> {
  put(out, entries[from]![0], await pending, state);
  for (let i = from + 1; i < entries.length; i++) {
    const [key, node] = entries[i]!;
    const value = evaluateNode(node, input, path, key, issues, blankAsMissing);
    put(out, key, value instanceof Promise ? await value : value, state);
  }
  return objectResult(out, state.any, path);
}

function put(out: Record<string, unknown>, key: string, value: unknown, state: { any: boolean }): void {
  if (value === undefined) return;
  out[key] = value;
  state.any = true;
}

// A nested mapping whose every expression yielded nothing is itself nothing,
// so an optional `author: { email: … }` is left out rather than sent empty.
function objectResult(out: Record<string, unknown>, any: boolean, path: MapPath): Record<string, unknown> | undefined {
  return any || path.length === 0 ? out : undefined;
}

function evaluateNode(
  node: Node,
  input: unknown,
  parent: MapPath,
  key: string,
  issues: MappingIssue[],
  blankAsMissing: boolean,
): Maybe<unknown> {
  switch (node.kind) {
    case 'literal':
      // Copied so a caller changing one body cannot change the next.
      return typeof node.value === 'object' && node.value !== null ? structuredClone(node.value) : node.value;
    case 'object':
      return evaluateObject(node.entries, input, [...parent, key], issues, blankAsMissing);
    case 'expression': {
      const { expression } = node;
      // No closures per call here: the per-record path stays allocation-light.
      try {
        const raw = expression.evaluate(input);
        if (raw instanceof Promise || isThenable(raw)) {
          return Promise.resolve(raw).then(
            (value) => settleValue(value, expression, blankAsMissing),
          ).catch((error: unknown) => failNode(error, expression, parent, key, issues));
        }
        return settleValue(raw, expression, blankAsMissing);
      } catch (error) {
        return failNode(error, expression, parent, key, issues);
      }
    }
  }
}

/** An expression's value as mapped: a blank field read straight from the record is nothing (see blankAsMissing). */
function settleValue(raw: unknown, expression: CompiledExpression, blankAsMissing: boolean): unknown {
  return raw === '' && blankAsMissing && expression.steps !== undefined ? undefined : plain(raw);
}

/** A failing expression is an issue of the record, at its map path; the value is nothing. */
function failNode(error: unknown, expression: CompiledExpression, parent: MapPath, key: string, issues: MappingIssue[]): undefined {
  issues.push({
    path: [...parent, key],
    message: error instanceof NotAValueError ? error.message : describeJsonataError(error, expression.source),
  });
  return undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
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
