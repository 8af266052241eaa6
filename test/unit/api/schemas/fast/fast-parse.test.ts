import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../../../../src/api/endpoints.js';
import { fastParseOf, NOT_PARSED } from '../../../../../src/api/schemas/fast/fast-parse.js';
import { conversationPage } from '../../../../../src/api/schemas/read.js';

type Def = Record<string, unknown> & { type: string };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** The value with its keys in order and undefined kept, to compare outputs exactly (toEqual ignores key order). */
function exact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(exact);
  if (typeof value === 'object' && value !== null) return Object.entries(value).map(([key, item]) => [key, exact(item)]);
  return value === undefined ? '<undefined>' : value;
}

const STRINGS = ['00000000-0000-4000-8000-00000000002a', 'agent@example.com', 'text'];

/** A value the schema accepts, built from its definition, with an extra key in every loose object. */
function sample(schema: unknown): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return STRINGS.find((text) => (schema as z.ZodType).safeParse(text).success) ?? 'text';
    case 'number':
      return (schema as z.ZodType).safeParse(3).success ? 3 : 2.5;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'unknown':
    case 'any':
      return { anything: [1, 'two'] };
    case 'enum':
    case 'literal':
      return [...(schema as { _zod: { values: Set<unknown> } })._zod.values][0];
    case 'nullable':
    case 'optional':
    case 'default':
      return sample(def.innerType);
    case 'array':
      return [sample(def.element), sample(def.element)];
    case 'record':
      return { first: sample(def.valueType), second: sample(def.valueType) };
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape as Record<string, unknown>)) out[key] = sample(field);
      if (def.catchall !== undefined) out.extraKey = { kept: true };
      return out;
    }
    default:
      throw new Error(`no sample for ${def.type}`);
  }
}

/** The value with the thing at `path` replaced (or removed when `to` is DELETE). */
const DELETE = Symbol('delete');
function replaced(value: unknown, path: readonly (string | number)[], to: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (to === DELETE) {
    if (Array.isArray(at)) at.splice(last as number, 1);
    else delete at[last];
  } else at[last] = to;
  return copy;
}

function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((key) => [[...prefix, key], ...paths((value as Record<string | number, unknown>)[key], [...prefix, key])]);
}

/** The valid sample and, for every path in it, the value removed, null, undefined, of another type, and an object with a key more. */
function variants(schema: z.ZodType): unknown[] {
  const valid = sample(schema);
  const out: unknown[] = [valid, JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(valid).slice(1)}`)];
  for (const path of paths(valid)) {
    for (const to of [DELETE, null, undefined, 7, -1.5, 'text', true, [], {}, { unexpected: 1 }, STRINGS[0], Number.NaN]) out.push(replaced(valid, path, to));
    const at = path.reduce<unknown>((value, step) => (value as Record<string | number, unknown>)[step], valid);
    if (typeof at === 'object' && at !== null && !Array.isArray(at)) {
      out.push(replaced(valid, path, { ...at, added: 'x' }));
      out.push(replaced(valid, path, Object.fromEntries(Object.entries(at).reverse())));
    }
  }
  return out;
}

function agrees(schema: z.ZodType, values: readonly unknown[]): void {
  const parse = fastParseOf(schema)!;
  expect(parse).toBeTypeOf('function');
  for (const value of values) {
    const fast = parse(value);
    const parsed = schema.safeParse(value);
    if (fast === NOT_PARSED) continue;
    expect(parsed.success, `zod refused what the fast parse took: ${JSON.stringify(value)}`).toBe(true);
    expect(exact(fast), JSON.stringify(value)).toEqual(exact(parsed.data));
  }
}

describe('fastParseOf', () => {
  const answers = Object.entries(ENDPOINTS).map(([name, endpoint]) => [name, endpoint.response as z.ZodType] as const);

  it.each(answers)('%s: takes only what zod accepts and returns what zod returns, keys in the same order', (_name, schema) => {
    const values = variants(schema);
    agrees(schema, values);
    // The valid sample and most answers with a key more are taken, not handed to zod.
    expect(fastParseOf(schema)!(values[0])).not.toBe(NOT_PARSED);
  });

  it('fills defaults in where zod does: a conversation participant without attended, a page without pagination fields', () => {
    const page = { conversations: [{ ...(sample(conversationPage) as { conversations: Record<string, unknown>[] }).conversations[0], participants: [{ name: 'A', email: null, other: 1 }] }], pagination: {} };
    const fast = fastParseOf(conversationPage)!(page) as { conversations: { participants: unknown[] }[]; pagination: unknown };
    expect(exact(fast)).toEqual(exact(conversationPage.parse(page)));
    expect(fast.conversations[0]!.participants[0]).toEqual({ name: 'A', email: null, attended: true, other: 1 });
    expect(fast.pagination).toEqual({ nextCursor: null, hasMore: false });
  });

  it('agrees with zod on optional, nullable and default in every order, and on plain, strict and loose objects', () => {
    const schemas: z.ZodType[] = [
      z.object({ a: z.string().optional(), b: z.number().default(1), c: z.boolean().nullable(), d: z.string().default('x').optional(), e: z.number().optional().default(2) }),
      z.strictObject({ a: z.string(), b: z.array(z.number().int().min(0).max(10)) }),
      z.looseObject({ a: z.record(z.string(), z.looseObject({ v: z.unknown(), t: z.enum(['x', 'y']) })), l: z.literal('on').nullable().optional() }),
      z.looseObject({ n: z.number().gt(0).lt(5), s: z.string().regex(/^a+$/g) }),
    ];
    for (const schema of schemas) {
      const values = variants(schema);
      agrees(schema, values);
      for (const value of [{}, { a: undefined }, { b: undefined, c: null }, { a: 'aaa', s: 'aaa', n: 5 }, { n: 0.5, s: 'aab' }]) agrees(schema, [value]);
    }
  });

  it('compiles no parse for what it does not cover', () => {
    expect(fastParseOf(z.looseObject({ a: z.string().transform((s) => s.length) }))).toBeUndefined();
    expect(fastParseOf(z.looseObject({ a: z.union([z.string(), z.number()]) }))).toBeUndefined();
    expect(fastParseOf(z.looseObject({ a: z.email() }))).toBeUndefined();
    expect(fastParseOf(z.looseObject({ a: z.string().min(1) }))).toBeUndefined();
    expect(fastParseOf(z.looseObject({ a: z.array(z.string()).min(1) }))).toBeUndefined();
    expect(fastParseOf(z.looseObject({ a: z.string() }).refine(() => true))).toBeUndefined();
    expect(fastParseOf(z.looseObject({ toString: z.string() }))).toBeUndefined();
    expect(fastParseOf(z.looseObject({ a: z.string() }).catchall(z.number()))).toBeUndefined();
  });
});
