/**
 * One `map:` string: a JSONata expression, or, for the common case of a bare
 * field name or dotted path, direct property access that skips JSONata.
 */
import jsonata from 'jsonata';
import type { Expression } from 'jsonata';

/** A field step: an identifier, or any name quoted in backticks (spaces, dashes). */
const STEP = /^(?:[A-Za-z_][A-Za-z0-9_]*|`[^`]+`)$/;
// Bare words JSONata reads as literals or operators, never as field names.
const KEYWORDS = new Set(['true', 'false', 'null', 'and', 'or', 'in', 'function']);

export interface CompiledExpression {
  readonly source: string;
  /** Field steps when the fast path applies. */
  readonly steps: readonly string[] | undefined;
  /** A value, or (JSONata's asynchronous functions) a promise of one. */
  evaluate(input: unknown): unknown;
}

export class ExpressionSyntaxError extends Error {}

/** Split `a.b.\`c d\`` into steps, or undefined when it is anything more than a plain path. */
export function fieldPath(source: string): string[] | undefined {
  const text = source.trim();
  if (text === '') return undefined;
  const steps: string[] = [];
  // Backticked steps may contain dots, so split on dots outside backticks.
  let step = '';
  let quoted = false;
  for (const ch of text) {
    if (ch === '`') quoted = !quoted;
    if (ch === '.' && !quoted) {
      steps.push(step);
      step = '';
    } else {
      step += ch;
    }
  }
  if (quoted) return undefined;
  steps.push(step);
  const names: string[] = [];
  for (const s of steps) {
    if (!STEP.test(s) || KEYWORDS.has(s)) return undefined;
    names.push(s.startsWith('`') ? s.slice(1, -1) : s);
  }
  return names;
}

/** Why a JSONata error happened, with where in the expression. */
export function describeJsonataError(error: unknown, source: string): string {
  if (error instanceof Error || (typeof error === 'object' && error !== null)) {
    const e = error as { code?: unknown; message?: unknown; position?: unknown };
    const message = typeof e.message === 'string' ? e.message : String(error);
    const code = typeof e.code === 'string' ? `${e.code} ` : '';
    const at = typeof e.position === 'number' ? ` at position ${e.position}` : '';
    return `${code}${message}${at} in ${JSON.stringify(source)}`;
  }
  return `${String(error)} in ${JSON.stringify(source)}`;
}

// JSONata's own $base64encode/$base64decode go through Latin-1 in Node, which
// mangles every non-ASCII character (’ becomes 0x19). Documents are UTF-8 text.
function registerUtf8Base64(expr: Expression): void {
  expr.registerFunction(
    'base64encode',
    (text: unknown) => (typeof text === 'string' ? Buffer.from(text, 'utf8').toString('base64') : undefined),
    '<s-:s>',
  );
  expr.registerFunction(
    'base64decode',
    (text: unknown) => (typeof text === 'string' ? Buffer.from(text, 'base64').toString('utf8') : undefined),
    '<s-:s>',
  );
}

function compileJsonata(source: string): Expression {
  let expr: Expression;
  try {
    expr = jsonata(source);
  } catch (error) {
    throw new ExpressionSyntaxError(describeJsonataError(error, source));
  }
  const unknown = unknownFunctions(expr.ast());
  if (unknown.length > 0) {
    // JSONata itself only notices when a record reaches the call, failing every record at run time.
    throw new ExpressionSyntaxError(
      `unknown function ${unknown.map((name) => `$${name}()`).join(', ')} in ${JSON.stringify(source)}; JSONata's functions are listed at https://docs.jsonata.org/overview`,
    );
  }
  registerUtf8Base64(expr);
  return expr;
}

/** JSONata 2's built-in functions ($now and $millis are bound per evaluation). */
const JSONATA_FUNCTIONS = new Set(
  ('sum count max min average string substring substringBefore substringAfter lowercase uppercase length trim pad match contains ' +
    'replace split join formatNumber formatBase formatInteger parseInteger number floor ceil round abs sqrt power random boolean not ' +
    'map zip filter single reduce sift keys lookup append exists spread merge reverse each error assert type sort shuffle distinct ' +
    'base64encode base64decode encodeUrlComponent encodeUrl decodeUrlComponent decodeUrl eval toMillis fromMillis clone now millis').split(' '),
);

type AstNode = { type?: unknown; value?: unknown; lhs?: AstNode; procedure?: AstNode; arguments?: unknown };

/**
 * Functions an expression calls that are neither built in nor bound in the
 * expression itself (`$f := function($x) {…}`, lambda parameters).
 */
export function unknownFunctions(ast: unknown): string[] {
  const bound = new Set<string>();
  const called = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const n = node as AstNode;
    if (n.type === 'bind' && n.lhs?.type === 'variable' && typeof n.lhs.value === 'string') bound.add(n.lhs.value);
    if (n.type === 'lambda' && Array.isArray(n.arguments)) {
      for (const arg of n.arguments as AstNode[]) if (typeof arg.value === 'string') bound.add(arg.value);
    }
    if ((n.type === 'function' || n.type === 'partial') && n.procedure?.type === 'variable' && typeof n.procedure.value === 'string') {
      called.add(n.procedure.value);
    }
    Object.values(node).forEach(visit);
  };
  visit(ast);
  return [...called].filter((name) => name !== '' && !bound.has(name) && !JSONATA_FUNCTIONS.has(name)).sort();
}

/**
 * Follow plain object members. JSONata maps a path over arrays and flattens
 * the results; rather than copy those rules, an array met on the way hands the
 * record to the compiled JSONata expression (`FALLBACK`).
 */
const FALLBACK = Symbol('fallback');
function walk(input: unknown, steps: readonly string[]): unknown {
  let current = input;
  for (const step of steps) {
    if (Array.isArray(current)) return FALLBACK;
    if (typeof current !== 'object' || current === null) return undefined;
    if (!Object.hasOwn(current, step)) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/**
 * Compile one expression. Throws {@link ExpressionSyntaxError} with JSONata's
 * message and position when it does not parse.
 */
export function compileExpression(source: string): CompiledExpression {
  if (source.trim() === '') throw new ExpressionSyntaxError('empty expression');
  const expr = compileJsonata(source);
  const steps = fieldPath(source);
  if (steps === undefined) {
    const fast = compileFast(expr.ast());
    if (fast === undefined) return { source, steps, evaluate: (input) => expr.evaluate(input) };
    return {
      source,
      steps,
      evaluate(input) {
        const value = isPlainRecord(input) ? fast(input) : FALLBACK;
        return value === FALLBACK ? expr.evaluate(input) : value;
      },
    };
  }
  return {
    source,
    steps,
    evaluate(input) {
      const value = walk(input, steps);
      return value === FALLBACK ? expr.evaluate(input) : value;
    },
  };
}

/**
 * A synchronous evaluator for the everyday expressions JSONata would run
 * asynchronously (dozens of promises per record): field paths, string
 * literals, `&` and `cond ? a : b`. It follows JSONata's rules for the
 * values it handles (strings, numbers, booleans, null, nothing) and answers
 * FALLBACK for anything else (an array or object on the way, a number to
 * concatenate), which hands the record to JSONata itself: JSONata stays the
 * one definition of what an expression means.
 */
type Fast = (input: Record<string, unknown>) => unknown;

const AST_KEYS: Record<string, ReadonlySet<string>> = {
  path: new Set(['type', 'steps', 'position']),
  name: new Set(['type', 'value', 'position']),
  string: new Set(['type', 'value', 'position']),
  binary: new Set(['type', 'value', 'lhs', 'rhs', 'position']),
  condition: new Set(['type', 'condition', 'then', 'else', 'position']),
};

function plainNode(node: unknown, type: string): node is Record<string, unknown> {
  if (node === null || typeof node !== 'object' || (node as { type?: unknown }).type !== type) return false;
  const allowed = AST_KEYS[type]!;
  return Object.keys(node).every((key) => allowed.has(key));
}

/** The fast form of an expression's AST, or undefined when any part of it is beyond the subset. */
export function compileFast(ast: unknown): Fast | undefined {
  if (plainNode(ast, 'string') && typeof ast.value === 'string') {
    const value = ast.value;
    return () => value;
  }
  if (plainNode(ast, 'path') && Array.isArray(ast.steps) && ast.steps.length > 0) {
    const names: string[] = [];
    for (const step of ast.steps as unknown[]) {
      if (!plainNode(step, 'name') || typeof step.value !== 'string') return undefined;
      names.push(step.value);
    }
    return (input) => {
      const value = walk(input, names);
      // An object or array result is a JSONata sequence question: left to JSONata.
      return typeof value === 'object' && value !== null ? FALLBACK : value;
    };
  }
  if (plainNode(ast, 'binary') && ast.value === '&') {
    const lhs = compileFast(ast.lhs);
    const rhs = compileFast(ast.rhs);
    if (!lhs || !rhs) return undefined;
    return (input) => {
      const l = lhs(input);
      if (l === FALLBACK || (l !== undefined && typeof l !== 'string')) return FALLBACK;
      const r = rhs(input);
      if (r === FALLBACK || (r !== undefined && typeof r !== 'string')) return FALLBACK;
      // JSONata: an absent operand is the empty string; numbers, null… go to JSONata ($string's formatting).
      return (l ?? '') + (r ?? '');
    };
  }
  if (plainNode(ast, 'condition')) {
    const condition = compileFast(ast.condition);
    const then = compileFast(ast.then);
    const otherwise = ast.else === undefined ? () => undefined : compileFast(ast.else);
    if (!condition || !then || !otherwise) return undefined;
    return (input) => {
      const truth = truthy(condition(input));
      if (truth === FALLBACK) return FALLBACK;
      return truth ? then(input) : otherwise(input);
    };
  }
  return undefined;
}

/** JSONata's effective boolean value, for the scalar values the fast path handles. */
function truthy(value: unknown): boolean | typeof FALLBACK {
  if (value === undefined || value === null) return false;
  switch (typeof value) {
    case 'string':
      return value.length > 0;
    case 'number':
      return Number.isFinite(value) ? value !== 0 : FALLBACK;
    case 'boolean':
      return value;
    default:
      return FALLBACK;
  }
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
