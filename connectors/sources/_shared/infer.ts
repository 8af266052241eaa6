/**
 * Field-type inference for discover(): watch sample values, then name the
 * narrowest object-type field type that fits all of them.
 */
import type { DiscoveredField, FieldType, SourceValue } from '../../../src/sdk/index.js';

/** How many records discover() samples. */
export const SAMPLE_SIZE = 1000;

/** Longer text (or text with line breaks) is a textarea rather than a string. */
const STRING_MAX = 255;

const INT = /^[+-]?(?:0|[1-9]\d*)$/;
const DOUBLE = /^[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

type Kind = FieldType | 'none';

function classifyText(text: string, fromCsv: boolean): Kind {
  if (text === '') return 'none';
  if (fromCsv) {
    // Leading zeros (zip codes, ids) are not numbers: casting would lose them.
    if (INT.test(text)) return Number.isSafeInteger(Number(text)) ? 'int' : 'string';
    if (DOUBLE.test(text) && !/^[+-]?0\d/.test(text)) return 'double';
    if (/^(true|false)$/i.test(text)) return 'boolean';
  }
  if (DATE.test(text) && !Number.isNaN(Date.parse(text))) return 'date';
  if (DATETIME.test(text) && !Number.isNaN(Date.parse(text.replace(' ', 'T')))) return 'datetime';
  return text.length > STRING_MAX || /[\r\n]/.test(text) ? 'textarea' : 'string';
}

function classify(value: SourceValue | undefined, fromCsv: boolean): Kind {
  if (value === undefined || value === null) return 'none';
  if (typeof value === 'string') return classifyText(value, fromCsv);
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'boolean') return 'boolean';
  if (value instanceof Date) return 'datetime';
  if (Array.isArray(value)) return 'list';
  // Nested objects have no field type of their own; they travel as JSON text.
  return 'textarea';
}

function merge(a: Kind, b: Kind): Kind {
  if (a === b || b === 'none') return a;
  if (a === 'none') return b;
  const pair = new Set([a, b]);
  if (pair.has('int') && pair.has('double')) return 'double';
  if (pair.has('date') && pair.has('datetime')) return 'datetime';
  if (pair.has('textarea')) return 'textarea';
  if (pair.has('list')) return 'textarea';
  return 'string';
}

/** Accumulates field types over sample records, keeping first-seen field order. */
export class FieldTypeInference {
  private readonly kinds = new Map<string, Kind>();
  private readonly nullable = new Set<string>();
  private readonly seen = new Map<string, number>();
  private total = 0;

  /** `fromCsv`: values are untyped text, so numbers and booleans are recognised in it. */
  constructor(private readonly fromCsv: boolean) {}

  /** Declare a field even if no sample has a value for it (e.g. a CSV header). */
  declare(name: string): void {
    if (!this.kinds.has(name)) this.kinds.set(name, 'none');
  }

  observe(record: { readonly [key: string]: SourceValue | undefined }): void {
    this.total += 1;
    for (const [name, value] of Object.entries(record)) {
      this.seen.set(name, (this.seen.get(name) ?? 0) + 1);
      const kind = classify(value, this.fromCsv);
      if (kind === 'none') this.nullable.add(name);
      this.kinds.set(name, merge(this.kinds.get(name) ?? 'none', kind));
    }
  }

  fields(): DiscoveredField[] {
    return [...this.kinds].map(([name, kind]) => ({
      name,
      type: kind === 'none' ? 'string' : kind,
      nullable: this.nullable.has(name) || kind === 'none' || (this.seen.get(name) ?? 0) < this.total,
    }));
  }
}

/** Fields worth offering as an incremental cursor. */
export function cursorCandidates(fields: readonly DiscoveredField[]): string[] {
  return fields
    .filter((field) => field.type === 'int' || field.type === 'double' || field.type === 'date' || field.type === 'datetime')
    .map((field) => field.name);
}
