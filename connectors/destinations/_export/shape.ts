/**
 * How a batch of exported records becomes tables, for every table
 * destination. `json` (the default) writes one table, one row per record,
 * nested values kept whole as JSON. `relational` splits nested data into
 * tables an analyst can join:
 * - an array of objects (a conversation's `transcript` and `participants`,
 *   a deal's `contacts`, a message's `recipients`) becomes a child table
 *   named `<singular table>_<field>` (conversations → `conversation_transcript`)
 *   with the parent's key column, a `position` column (0-based order in the
 *   array) and one column per field of the element;
 * - a row's `fields` map (`{ amount: { value, fieldType, label } }`) becomes
 *   one column per field holding its value (`fields_<name>` where the name
 *   is already a top-level column);
 * - everything else stays as in `json`.
 * Child rows are replaced per parent: a parent written again drops its old
 * children first, so a shorter transcript leaves no stale lines behind.
 */
import { z } from 'zod';
import { isRecord, snakeCase, type ExportConventions, type NestedType } from '../../../src/sdk/index.js';
import { kindOfFieldType, type ColumnKind } from './columns.js';

/** The `shape` option of table destinations. */
export const shapeOption = z.enum(['json', 'relational']).default('json');

export type TableShape = z.output<typeof shapeOption>;

export type Row = Record<string, unknown>;

/** Rows for one table of a batch. */
export interface TableBatch {
  table: string;
  rows: readonly Readonly<Row>[];
  /** Upsert rows by this column (parent tables). */
  key?: string;
  /** Delete the rows whose `column` is one of `ids` before inserting (child tables). */
  replace?: { column: string; ids: unknown[] };
  /**
   * The analyst layout (`naming: snake_case`): columns typed from their values
   * (timestamps, dates) and `hints`, a column of only nulls created all the
   * same, a new table given its primary key (`key`, or a child's `_ferry_id`).
   */
  typed?: boolean;
  /** Column kinds known from the data's shape (a row's fieldType). */
  hints?: Record<string, ColumnKind>;
  /** Columns whose nested shape the spec gives (DestinationBatch.nestedTypes), for STRUCT and LIST columns. */
  nested?: Readonly<Record<string, NestedType>>;
}

/** A table problem that is the user's to fix (a key column the table lacks), as opposed to a driver error. */
export class TableProblem extends Error {}

/** The load metadata columns ferry adds to records (src/export/conventions.ts), which child rows inherit. */
export const LOADED_AT_COLUMN = '_ferry_loaded_at';
export const LOAD_ID_COLUMN = '_ferry_load_id';
export const METADATA_COLUMNS = [LOADED_AT_COLUMN, LOAD_ID_COLUMN] as const;
/** The column `deletes: soft` sets. */
export const DELETED_AT_COLUMN = '_ferry_deleted_at';
/** The table of completed runs in database destinations. */
export const LOADS_TABLE = '_ferry_loads';

/** The analyst layout's key of a child row: `<parent key>#<position>`. */
export const CHILD_ID_COLUMN = '_ferry_id';

/** The column that orders a child row inside its parent's array. */
export const POSITION_COLUMN = 'position';

/** The tables of one batch: the parent table first, then each child table in first-seen order. */
export function shapeBatch(
  records: readonly Readonly<Row>[],
  table: string,
  key: string,
  shape: TableShape,
  conventions?: ExportConventions,
  nestedTypes?: Readonly<Record<string, NestedType>>,
): TableBatch[] {
  const typed = conventions?.naming === 'snake_case';
  const flags = typed ? { typed: true } : {};
  // deletes: soft writes null there until a listing stamps it: a timestamp all the same.
  const known: Record<string, ColumnKind> = typed ? { [DELETED_AT_COLUMN]: 'timestamp' } : {};
  // Free-form fields are JSON even when null in every record; the others are STRUCT and LIST. Arrays of
  // objects of `relational` are child tables: the nested types that remain are the parent's columns'.
  const structured: Record<string, NestedType> = {};
  for (const [name, type] of Object.entries(nestedTypes ?? {})) {
    if (type === 'json') known[name] = 'json';
    else structured[name] = type;
  }
  const nested = Object.keys(structured).length > 0 ? { nested: structured } : {};
  if (shape === 'json') return [{ table, key, rows: records, ...flags, ...(typed ? { hints: known } : {}), ...nested }];
  // Load metadata is on every table: a child row carries its parent's.
  const inherited = conventions?.metadata ? METADATA_COLUMNS : [];
  const parents = new Map<string, TableBatch & { rows: Row[]; hints: Record<string, ColumnKind> }>();
  const children = new Map<string, TableBatch & { rows: Row[] }>();
  for (const record of records) {
    const parent: Row = {};
    const hints: Record<string, ColumnKind> = {};
    for (const [name, value] of Object.entries(record)) {
      if (name === 'fields' && isFieldMap(value)) {
        for (const [field, entry] of Object.entries(value)) {
          const column = field in record ? `fields_${field}` : field;
          parent[column] = entry.value;
          const hint = typed ? kindOfFieldType(entry.fieldType) : undefined;
          if (hint) hints[column] = hint;
        }
      } else if (isObjectArray(value) || (value === null && CHILD_WHEN_NULL.has(name))) {
        const child = childTable(children, table, name, key, flags);
        child.replace!.ids.push(record[key]);
        (value ?? []).forEach((element, position) => {
          const row: Row = { ...element, [key]: record[key], [POSITION_COLUMN]: position };
          // The analyst layout gives a child row a key of its own: its parent's key and its place.
          if (typed) row[CHILD_ID_COLUMN] = `${String(record[key])}#${position}`;
          for (const column of inherited) if (column in record) row[column] = record[column];
          child.rows.push(row);
        });
      } else {
        parent[name] = value;
      }
    }
    // The analyst layout: rows of each object type in a table of their own, `<table>_<object type>`.
    const type = typed && isFieldMap(record.fields) ? record[TYPE_COLUMN] : undefined;
    const target = typeof type === 'string' && type !== '' ? `${table}_${snakeCase(type)}` : table;
    let batch = parents.get(target);
    if (!batch) {
      batch = { table: target, key, rows: [], hints: { ...known }, ...flags, ...nested };
      parents.set(target, batch);
    }
    batch.rows.push(parent);
    Object.assign(batch.hints, hints);
  }
  const out: TableBatch[] = [];
  for (const batch of parents.values()) {
    const { hints, ...rest } = batch;
    out.push(Object.keys(hints).length > 0 ? { ...rest, hints } : rest);
  }
  return [...out, ...children.values()];
}

/** The column that names a row's object type in the analyst layout; its per-type tables have it. */
export const TYPE_COLUMN = 'object_type_name';

/** Whether `candidate` is a table of one object type's rows of `table` (`rows` → `rows_deal`). */
export function isTypeTableOf(table: string, candidate: string): boolean {
  return candidate.startsWith(`${table}_`) && !candidate.startsWith('_ferry');
}

/** The name of a child table: `conversations` + `transcript` → `conversation_transcript`. */
export function childTableName(table: string, field: string): string {
  const singular = table.length > 1 && table.endsWith('s') ? table.slice(0, -1) : table;
  return `${singular}_${field}`;
}

/** Whether `candidate` is named like a child table of `table` (for mirroring deletions into child tables). */
export function isChildTableOf(table: string, candidate: string): boolean {
  return candidate.startsWith(childTableName(table, '')) && candidate !== table;
}

/** Nullable arrays of the service (a conversation's transcript): null means "none", so old children go. */
const CHILD_WHEN_NULL = new Set(['transcript']);

function childTable(children: Map<string, TableBatch & { rows: Row[] }>, table: string, field: string, key: string, flags: { typed?: boolean }): TableBatch & { rows: Row[] } {
  let child = children.get(field);
  if (!child) {
    child = { table: childTableName(table, field), rows: [], replace: { column: key, ids: [] }, ...flags };
    children.set(field, child);
  }
  return child;
}

function isObjectArray(value: unknown): value is Row[] {
  return Array.isArray(value) && value.every(isRecord);
}

function isFieldMap(value: unknown): value is Record<string, { value: unknown; fieldType?: unknown }> {
  return isRecord(value) && Object.values(value).every((entry) => isRecord(entry) && 'value' in entry);
}
