/**
 * Column kinds for table destinations, inferred from values: what a column
 * is created as, and how a value is encoded for it. Nested values (objects,
 * arrays) are kept whole as JSON, never flattened.
 */
import { isRecord } from '../../src/sdk/index.js';

export type ColumnKind = 'boolean' | 'integer' | 'number' | 'text' | 'json';

/** The kind a value asks for; `undefined` for null (it says nothing). */
export function kindOf(value: unknown): ColumnKind | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'bigint') return 'integer';
  if (typeof value === 'string' || value instanceof Date) return 'text';
  if (Array.isArray(value) || isRecord(value)) return 'json';
  return 'text';
}

/** Two kinds seen in one column: integers widen to numbers, anything else mixed is text. */
function widen(a: ColumnKind, b: ColumnKind): ColumnKind {
  if (a === b) return a;
  if ((a === 'integer' && b === 'number') || (a === 'number' && b === 'integer')) return 'number';
  return 'text';
}

/**
 * The columns of a batch in first-seen order, each with the kind its values
 * need. A column holding only nulls is text.
 */
export function inferColumns(records: readonly Readonly<Record<string, unknown>>[]): Map<string, ColumnKind> {
  const kinds = new Map<string, ColumnKind | undefined>();
  for (const record of records) {
    for (const [name, value] of Object.entries(record)) {
      const kind = kindOf(value);
      const known = kinds.get(name);
      if (!kinds.has(name) || known === undefined) kinds.set(name, kind);
      else if (kind !== undefined) kinds.set(name, widen(known, kind));
    }
  }
  return new Map([...kinds].map(([name, kind]) => [name, kind ?? 'text']));
}

/**
 * Records whose key repeats keep only their last occurrence, in place of the
 * first: paging can return a record twice, and one multi-row upsert may not
 * touch the same row twice.
 */
export function lastByKey(records: readonly Readonly<Record<string, unknown>>[], key: string): Readonly<Record<string, unknown>>[] {
  const byKey = new Map<string, Readonly<Record<string, unknown>>>();
  for (const record of records) byKey.set(keyText(record[key]), record);
  return [...byKey.values()];
}

/** A key value as text, for comparing keys of any scalar type. */
export function keyText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

/** Table and column names: quoted, so any name is safe; a quote inside is doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
