/**
 * Records to text: JSON lines, or CSV rows under a fixed header. Pure, so
 * the writer only deals with files.
 */
import { csvLine } from '../_export/csv.js';
import { collectKeys, flattenRecord } from '../_export/flatten.js';

export function jsonLines(records: readonly Readonly<Record<string, unknown>>[]): string {
  let out = '';
  for (const record of records) out += `${JSON.stringify(record)}\n`;
  return out;
}

/**
 * CSV rows of a batch. Without columns yet, the columns are the flattened
 * keys of this (the first) batch. Keys that are not columns are returned so
 * the writer can warn about them once.
 */
export function csvRows(
  records: readonly Readonly<Record<string, unknown>>[],
  columns: readonly string[] | undefined,
  withHeader: boolean,
): { text: string; columns: string[]; dropped: string[] } {
  const flat = records.map(flattenRecord);
  const keys = collectKeys(flat);
  const chosen = columns ? [...columns] : keys;
  const known = new Set(chosen);
  let text = withHeader ? csvLine(chosen) : '';
  for (const row of flat) text += csvLine(chosen.map((column) => row[column] ?? null));
  return { text, columns: chosen, dropped: keys.filter((key) => !known.has(key)) };
}
