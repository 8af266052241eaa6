/**
 * A parse compiled from a zod schema's definition, for the answers the
 * client reads by the hundred per export (list pages): closures over the
 * schema's own shape, enums, patterns and defaults, with no issue objects or
 * per-field payloads. For a value it returns exactly what `schema.parse`
 * returns — the same keys in the same order, defaults filled in, unknown
 * keys of loose objects kept and of plain objects dropped — or
 * {@link NOT_PARSED} when it cannot vouch for that (anything invalid, and
 * anything unusual such as a `__proto__` key), and then zod parses, so
 * failures keep zod's messages and the schema stays the one definition.
 *
 * It covers objects (loose, plain, strict), arrays, string-keyed records,
 * strings (with `.regex()` checks), finite numbers (integer and bound
 * checks), booleans, null, enums, literals, unknown, optional, nullable and
 * default; a schema using anything else (a transform, a pipe, a refinement,
 * a union, a string format) yields no parse (undefined), so its answers take
 * the plain path. Like fast-check.ts it reads zod's private `_zod` and only
 * here; test/unit/api/schemas/fast/fast-parse.test.ts holds it to zod's
 * output on every list and detail answer schema.
 */
import type { z } from 'zod';

/** What a fast parse returns when zod must decide. */
export const NOT_PARSED: unique symbol = Symbol('not parsed');

export type FastParse = (value: unknown) => unknown;

type Parse = (value: unknown) => unknown;

interface Zod {
  def: Def;
  optin?: 'optional' | 'defaulted';
  optout?: 'optional';
  traits?: ReadonlySet<string>;
  values?: ReadonlySet<unknown>;
}

interface Def {
  type?: string;
  checks?: readonly { _zod?: Zod }[];
  coerce?: boolean;
  shape?: Record<string, { _zod?: Zod }>;
  catchall?: { _zod?: Zod };
  element?: { _zod?: Zod };
  innerType?: { _zod?: Zod };
  keyType?: { _zod?: Zod };
  valueType?: { _zod?: Zod };
  mode?: string;
  defaultValue?: unknown;
  // checks
  check?: string;
  format?: string;
  pattern?: unknown;
  when?: unknown;
  abort?: boolean;
  value?: unknown;
  inclusive?: boolean;
}

const zodOf = (schema: unknown): Zod | undefined => {
  const zod = (schema as { _zod?: Zod } | undefined)?._zod;
  return zod?.def === undefined ? undefined : zod;
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const hasOwn = Object.prototype.hasOwnProperty;

/** The compiled parse of a schema; undefined when the schema uses anything this does not cover. */
export function fastParseOf(schema: z.ZodType): FastParse | undefined {
  try {
    return compile(zodOf(schema));
  } catch {
    return undefined;
  }
}

function compile(zod: Zod | undefined): Parse | undefined {
  if (zod === undefined) return undefined;
  const def = zod.def;
  // A schema that is itself a check (z.uuid(), z.email(), …) runs code of its own: not covered.
  if (zod.traits?.has('$ZodCheck') || def.coerce) return undefined;
  const checks = def.checks ?? [];
  switch (def.type) {
    case 'string':
      return stringParse(checks);
    case 'number':
      return numberParse(checks);
    case 'boolean':
      return checks.length === 0 ? (value) => (typeof value === 'boolean' ? value : NOT_PARSED) : undefined;
    case 'null':
      return checks.length === 0 ? (value) => (value === null ? value : NOT_PARSED) : undefined;
    case 'unknown':
    case 'any':
      return checks.length === 0 ? (value) => value : undefined;
    case 'enum':
    case 'literal': {
      const values = zod.values;
      if (checks.length > 0 || values === undefined) return undefined;
      return (value) => (values.has(value) ? value : NOT_PARSED);
    }
    case 'nullable': {
      const inner = compile(zodOf(def.innerType));
      if (checks.length > 0 || inner === undefined) return undefined;
      return (value) => (value === null ? value : inner(value));
    }
    case 'optional': {
      const innerZod = zodOf(def.innerType);
      const inner = compile(innerZod);
      if (checks.length > 0 || inner === undefined) return undefined;
      // As zod: an absent value stays absent unless the inner schema substitutes one (a default).
      if (innerZod!.optin === 'defaulted') return inner;
      return (value) => (value === undefined ? value : inner(value));
    }
    case 'default': {
      const inner = compile(zodOf(def.innerType));
      if (checks.length > 0 || inner === undefined) return undefined;
      return (value) => {
        // The getter: a fresh copy of an object default, as zod gives each parse.
        if (value === undefined) return def.defaultValue;
        const parsed = inner(value);
        return parsed === undefined ? def.defaultValue : parsed;
      };
    }
    case 'array':
      return checks.length === 0 ? arrayParse(zodOf(def.element)) : undefined;
    case 'record':
      return checks.length === 0 ? recordParse(def) : undefined;
    case 'object':
      return checks.length === 0 ? objectParse(def) : undefined;
    default:
      return undefined;
  }
}

function stringParse(checks: readonly { _zod?: Zod }[]): Parse | undefined {
  const patterns: RegExp[] = [];
  for (const check of checks) {
    const def = check._zod?.def;
    // `.regex()`: a test of the pattern from its start (zod resets lastIndex), nothing else.
    if (def?.check !== 'string_format' || def.format !== 'regex' || !(def.pattern instanceof RegExp) || def.when !== undefined) return undefined;
    patterns.push(def.pattern);
  }
  if (patterns.length === 0) return (value) => (typeof value === 'string' ? value : NOT_PARSED);
  return (value) => {
    if (typeof value !== 'string') return NOT_PARSED;
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      if (!pattern.test(value)) return NOT_PARSED;
    }
    return value;
  };
}

function numberParse(checks: readonly { _zod?: Zod }[]): Parse | undefined {
  const tests: ((value: number) => boolean)[] = [];
  for (const check of checks) {
    const def = check._zod?.def;
    if (def === undefined || def.when !== undefined) return undefined;
    if (def.check === 'number_format' && def.format === 'safeint') tests.push(Number.isSafeInteger);
    else if (def.check === 'greater_than' && typeof def.value === 'number') {
      const bound = def.value;
      tests.push(def.inclusive ? (value) => value >= bound : (value) => value > bound);
    } else if (def.check === 'less_than' && typeof def.value === 'number') {
      const bound = def.value;
      tests.push(def.inclusive ? (value) => value <= bound : (value) => value < bound);
    } else return undefined;
  }
  return (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return NOT_PARSED;
    for (const test of tests) if (!test(value)) return NOT_PARSED;
    return value;
  };
}

function arrayParse(element: Zod | undefined): Parse | undefined {
  const item = compile(element);
  // An optional element may end an array early in zod's output: not covered.
  if (item === undefined || element!.optin !== undefined) return undefined;
  return (value) => {
    if (!Array.isArray(value)) return NOT_PARSED;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const parsed = item(value[i]);
      if (parsed === NOT_PARSED) return NOT_PARSED;
      out[i] = parsed;
    }
    return out;
  };
}

/** A record keyed by plain strings: every own key kept, each value parsed. */
function recordParse(def: Def): Parse | undefined {
  const key = zodOf(def.keyType);
  if (key === undefined || key.def.type !== 'string' || (key.def.checks?.length ?? 0) > 0 || key.traits?.has('$ZodCheck') || key.def.coerce || key.values !== undefined) return undefined;
  const item = compile(zodOf(def.valueType));
  if (item === undefined) return undefined;
  return (value) => {
    // zod's isPlainObject looks at `constructor`; a value with such a key (or `__proto__`) is left to zod.
    if (!isObject(value) || Object.getPrototypeOf(value) !== Object.prototype || hasOwn.call(value, 'constructor') || hasOwn.call(value, '__proto__')) return NOT_PARSED;
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      const parsed = item(value[name]);
      if (parsed === NOT_PARSED) return NOT_PARSED;
      out[name] = parsed;
    }
    return out;
  };
}

interface Field {
  key: string;
  parse: Parse;
  optin: Zod['optin'];
  optout: Zod['optout'];
}

/**
 * An object as zod builds it: the shape's keys first, in the shape's order
 * (each present one parsed, an absent one left out, or its default filled
 * in), then a loose object's other keys in their order; a plain object drops
 * them, a strict one fails on them.
 */
function objectParse(def: Def): Parse | undefined {
  const shape = def.shape;
  if (shape === undefined || Object.getOwnPropertySymbols(shape).length > 0) return undefined;
  const fields: Field[] = [];
  for (const key of Object.keys(shape)) {
    // A key Object.prototype has is found by zod's `key in input` on any object: not covered.
    if (key in Object.prototype || key === '__proto__') return undefined;
    const zod = zodOf(shape[key]);
    const parse = compile(zod);
    if (parse === undefined) return undefined;
    fields.push({ key, parse, optin: zod!.optin, optout: zod!.optout });
  }
  const known = new Set(fields.map((field) => field.key));
  let rest: 'keep' | 'drop' | 'refuse';
  if (def.catchall === undefined) rest = 'drop';
  else {
    const type = zodOf(def.catchall)?.def.type;
    if (type === 'unknown' || type === 'any') rest = 'keep';
    else if (type === 'never') rest = 'refuse';
    else return undefined;
  }
  return (value) => {
    if (!isObject(value) || hasOwn.call(value, '__proto__')) return NOT_PARSED;
    const out: Record<string, unknown> = {};
    for (const { key, parse, optin, optout } of fields) {
      const present = key in value;
      const parsed = parse(value[key]);
      if (!present) {
        // zod's handlePropertyResult for a key the input lacks.
        if (optin === undefined) return NOT_PARSED;
        if (optout === 'optional' && (optin === 'optional' || parsed === NOT_PARSED)) continue;
        if (parsed === NOT_PARSED) return NOT_PARSED;
        if (parsed !== undefined || (optin === 'defaulted' && optout !== 'optional')) out[key] = parsed;
        continue;
      }
      if (parsed === NOT_PARSED) return NOT_PARSED;
      out[key] = parsed;
    }
    if (rest === 'drop') return out;
    for (const key in value) {
      if (known.has(key)) continue;
      if (rest === 'refuse') return NOT_PARSED;
      out[key] = value[key];
    }
    return out;
  };
}
