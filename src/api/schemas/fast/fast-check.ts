/**
 * A cheap check derived from a zod schema, for the answers the client gets
 * thousands of times a second (the 201 of a record push): when the schema is
 * a loose object of plain strings, enums and literals, a value passing the check is
 * exactly what the full parse would return (a loose object keeps its other
 * keys), so the parse can be skipped. The schema stays the one definition;
 * anything the check does not cover goes through zod, as do all failures
 * (for zod's messages).
 *
 * The fast path of the client's answer parse (src/api/client.ts), whose
 * plain path is `schema.parse`. It reads zod's private `_zod.def`, and only
 * here: a zod whose internals moved yields no check (undefined), so every
 * answer takes the plain parse; one whose meaning moved fails the agreement
 * test (test/unit/api/schemas/fast/fast-check.test.ts). Figures:
 * docs/performance.md.
 */
import type { z } from 'zod';

export type FastCheck = (value: unknown) => boolean;

type FieldCheck = (value: unknown) => boolean;

interface Def {
  type?: string;
  shape?: Record<string, { _zod?: { def?: Def; values?: ReadonlySet<unknown> } }>;
  catchall?: { _zod?: { def?: Def } };
  checks?: readonly unknown[];
}

const defOf = (schema: unknown): Def | undefined => (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def;

function fieldCheck(schema: { _zod?: { def?: Def; values?: ReadonlySet<unknown> } }): FieldCheck | undefined {
  const def = schema._zod?.def;
  if (def?.type === 'string' && (def.checks === undefined || def.checks.length === 0)) return (value) => typeof value === 'string';
  const values = schema._zod?.values;
  if ((def?.type === 'enum' || def?.type === 'literal') && values !== undefined) return (value) => values.has(value);
  return undefined;
}

/** The check of a loose object of plain strings, enums and literals; undefined for any other schema. */
export function fastCheckOf(schema: z.ZodType): FastCheck | undefined {
  const def = defOf(schema);
  if (def?.type !== 'object' || def.shape === undefined || defOf(def.catchall)?.type !== 'unknown') return undefined;
  const fields: [string, FieldCheck][] = [];
  for (const [key, field] of Object.entries(def.shape)) {
    const check = fieldCheck(field);
    if (check === undefined) return undefined;
    fields.push([key, check]);
  }
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    for (const [key, check] of fields) if (!check((value as Record<string, unknown>)[key])) return false;
    return true;
  };
}
