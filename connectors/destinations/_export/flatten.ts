/**
 * Turning nested records into flat cells, for destinations that have columns
 * (CSV files): nested objects become dot-keyed columns, arrays become JSON
 * text, and every cell is a string, number, boolean or null.
 */
import { isRecord } from '../../../src/sdk/index.js';

export type Cell = string | number | boolean | null;

/**
 * `{ owner: { name: 'A' }, tags: ['x'] }` → `{ 'owner.name': 'A', tags: '["x"]' }`.
 * An empty object and null both become a null cell under their own key, so a
 * column does not vanish just because one record had nothing there.
 */
export function flattenRecord(record: Readonly<Record<string, unknown>>): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  const visit = (value: unknown, key: string) => {
    if (isRecord(value)) {
      const entries = Object.entries(value);
      if (entries.length === 0) {
        out[key] = null;
        return;
      }
      for (const [child, inner] of entries) visit(inner, `${key}.${child}`);
      return;
    }
    out[key] = toCell(value);
  };
  for (const [key, value] of Object.entries(record)) visit(value, key);
  return out;
}

/** A scalar as a cell; arrays and objects as JSON text; undefined as null. */
export function toCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

/** Keys of many records in first-seen order. */
export function collectKeys(records: Iterable<Readonly<Record<string, unknown>>>): string[] {
  const seen = new Set<string>();
  for (const record of records) for (const key of Object.keys(record)) seen.add(key);
  return [...seen];
}
