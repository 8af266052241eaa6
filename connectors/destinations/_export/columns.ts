/**
 * Column kinds for table destinations, inferred from values: what a column
 * is created as, and how a value is encoded for it. Nested values (objects,
 * arrays) are kept whole as JSON, never flattened.
 */
import { isRecord, type NestedType } from '../../../src/sdk/index.js';

export type ColumnKind = 'boolean' | 'integer' | 'number' | 'timestamp' | 'date' | 'text' | 'json';

export interface InferOptions {
  /** Strings that are ISO-8601 instants (with a zone) and Dates are timestamps, not text. @default false */
  timestamps?: boolean;
  /** Leave out columns that hold only nulls (they say nothing of their type; a later batch adds them typed). @default false: they are text */
  omitNullColumns?: boolean;
  /** Strings that are calendar dates (`2024-03-01`) are dates, not text. @default false */
  dates?: boolean;
  /** Kinds known from the data's shape (a row's fieldType): they type a column of only nulls, and make integers numbers up front. */
  hints?: Readonly<Record<string, ColumnKind>>;
}

/** A row field's fieldType (src/sdk FIELD_TYPES) as a column kind. */
export function kindOfFieldType(fieldType: unknown): ColumnKind | undefined {
  switch (fieldType) {
    case 'int':
      return 'integer';
    case 'double':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'datetime':
      return 'timestamp';
    case 'date':
      return 'date';
    case 'list':
      return 'json';
    case 'string':
    case 'textarea':
      return 'text';
    default:
      return undefined;
  }
}

/** An ISO-8601 date-time with seconds and an explicit zone, as the service writes them. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;
/** A calendar date, as the service writes a `date` field. */
const ISO_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** The kind a value asks for; `undefined` for null (it says nothing). */
export function kindOf(value: unknown, options: InferOptions = {}): ColumnKind | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'bigint') return 'integer';
  if (options.timestamps && (value instanceof Date || (typeof value === 'string' && ISO_INSTANT.test(value)))) return 'timestamp';
  if (options.dates && typeof value === 'string' && ISO_DATE.test(value)) return 'date';
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
export function inferColumns(records: readonly Readonly<Record<string, unknown>>[], options: InferOptions = {}): Map<string, ColumnKind> {
  const kinds = new Map<string, ColumnKind | undefined>();
  for (const record of records) {
    // for…in over own data properties: no entry arrays per record, which matters at 100k records a batch.
    for (const name in record) {
      const known = kinds.get(name);
      if (known === 'text') continue; // text is the widest kind: nothing can change it
      const kind = kindOf(record[name], options);
      if (known === undefined) kinds.set(name, kind);
      else if (kind !== undefined && kind !== known) kinds.set(name, widen(known, kind));
    }
  }
  const hints = options.hints;
  if (hints) {
    for (const [name, kind] of kinds) {
      const hint = hints[name];
      if (hint !== undefined && (kind === undefined || (kind === 'integer' && hint === 'number'))) kinds.set(name, hint);
    }
  }
  const entries = [...kinds].filter(([, kind]) => kind !== undefined || !options.omitNullColumns);
  return new Map(entries.map(([name, kind]) => [name, kind ?? 'text']));
}

/** A column that must become wider to hold a batch: an object type's field that held numbers now holds text. */
export interface Widening {
  column: string;
  from: ColumnKind;
  to: ColumnKind;
}

/**
 * Columns whose stored kind cannot hold the batch's values. `stored` gives a
 * column's kind, or undefined for a column ferry did not type (left alone).
 * A column holding only nulls in the batch says nothing about its type.
 */
export function widenings(kinds: ReadonlyMap<string, ColumnKind>, stored: (column: string) => ColumnKind | undefined, rows: readonly Readonly<Record<string, unknown>>[]): Widening[] {
  const out: Widening[] = [];
  for (const [column, kind] of kinds) {
    const from = stored(column);
    if (from === undefined || from === kind) continue;
    const to = widen(from, kind);
    if (to !== from && rows.some((row) => row[column] !== null && row[column] !== undefined)) out.push({ column, from, to });
  }
  return out;
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

/**
 * The column a name in the options means: itself when it is one, else the
 * column it becomes under `naming: snake_case` (`startTime` → `start_time`),
 * matched without case and underscores; undefined when there is none.
 */
export function columnNamed(name: string, columns: Iterable<string>): string | undefined {
  const loose = (text: string) => text.replaceAll('_', '').toLowerCase();
  let match: string | undefined;
  for (const column of columns) {
    if (column === name) return column;
    if (match === undefined && loose(column) === loose(name)) match = column;
  }
  return match;
}

/** Table and column names: quoted, so any name is safe; a quote inside is doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Whether a value has the nested type the spec gives its field, so a STRUCT
 * or LIST column holds it exactly: an object with no key the type lacks, an
 * array of such values, scalars of the type's kind (text only strings). A
 * value that does not (a field the service added since, a number where text
 * was promised) keeps its column JSON.
 */
export function fitsNested(value: unknown, type: NestedType): boolean {
  if (value === null || value === undefined) return true;
  switch (type) {
    case 'json':
      return true;
    case 'text':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value));
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      if ('list' in type) return Array.isArray(value) && value.every((element) => fitsNested(element, type.list));
      if (!isRecord(value)) return false;
      for (const key in value) {
        const inner = type.struct[key];
        if (inner === undefined || !fitsNested(value[key], inner)) return false;
      }
      return true;
  }
}
