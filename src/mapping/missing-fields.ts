/**
 * A dead-letter reason that names what is missing: zod's "expected string,
 * received undefined" says neither which field nor why. A field whose map
 * entry is a bare source column the record lacks is named with that column
 * and the columns the record has (issue 46).
 */
import type { MapSpec, MapValue } from '../config/schema.js';
import { bareColumnOf } from './bare-columns.js';

const MISSING = /(^|; )([\w.[\]-]+): Invalid input: expected (\w+), received undefined/g;

/** The map entry at `path` (`fields.amount`), when it is an expression. */
function entryAt(map: MapSpec, path: string): string | undefined {
  let value: MapValue | undefined = map;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as MapSpec)[step];
    // A row field's value is wrapped as { value, fieldType }: its map entry is the field's.
    if (value === undefined && step === 'value') return undefined;
  }
  return typeof value === 'string' ? value : undefined;
}

export function explainMissingFields(reason: string, map: MapSpec, input: unknown): string {
  if (!reason.includes('received undefined')) return reason;
  const columns = input !== null && typeof input === 'object' && !Array.isArray(input) ? Object.keys(input) : undefined;
  return reason.replace(MISSING, (_match, lead: string, path: string, type: string) => {
    const mapPath = path.replace(/\.value$/, '');
    const entry = entryAt(map, mapPath);
    let text = `${lead}field \`${mapPath}\` is missing (expected ${type})`;
    const column = entry === undefined ? undefined : bareColumnOf(entry);
    if (column !== undefined) {
      if (columns !== undefined && !columns.includes(column)) {
        const shown = columns.slice(0, 12).join(', ') + (columns.length > 12 ? ', …' : '');
        text += `: its source column \`${column}\` is not in the record (it has: ${shown})`;
      } else text += `: source column \`${column}\` is empty or absent in this record`;
    }
    return text;
  });
}
