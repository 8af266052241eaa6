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
import { isRecord, type ExportConventions } from '../../../src/sdk/index.js';

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
}

/** A table problem that is the user's to fix (a key column the table lacks), as opposed to a driver error. */
export class TableProblem extends Error {}

/** The load metadata columns ferry adds to records (src/export/conventions.ts), which child rows inherit. */
export const METADATA_COLUMNS = ['_ferry_loaded_at', '_ferry_load_id'] as const;
/** The column `deletes: soft` sets. */
export const DELETED_AT_COLUMN = '_ferry_deleted_at';
/** The table of completed runs in database destinations. */
export const LOADS_TABLE = '_ferry_loads';

/** The column that orders a child row inside its parent's array. */
export const POSITION_COLUMN = 'position';

/** The tables of one batch: the parent table first, then each child table in first-seen order. */
export function shapeBatch(records: readonly Readonly<Row>[], table: string, key: string, shape: TableShape, conventions?: ExportConventions): TableBatch[] {
  if (shape === 'json') return [{ table, key, rows: records }];
  // Load metadata is on every table: a child row carries its parent's.
  const inherited = conventions?.metadata ? METADATA_COLUMNS : [];
  const parents: Row[] = [];
  const children = new Map<string, TableBatch & { rows: Row[] }>();
  for (const record of records) {
    const parent: Row = {};
    for (const [name, value] of Object.entries(record)) {
      if (name === 'fields' && isFieldMap(value)) {
        for (const [field, entry] of Object.entries(value)) {
          parent[field in record ? `fields_${field}` : field] = entry.value;
        }
      } else if (isObjectArray(value) || (value === null && CHILD_WHEN_NULL.has(name))) {
        const child = childTable(children, table, name, key);
        child.replace!.ids.push(record[key]);
        (value ?? []).forEach((element, position) => {
          const row: Row = { ...element, [key]: record[key], [POSITION_COLUMN]: position };
          for (const column of inherited) if (column in record) row[column] = record[column];
          child.rows.push(row);
        });
      } else {
        parent[name] = value;
      }
    }
    parents.push(parent);
  }
  return [{ table, key, rows: parents }, ...children.values()];
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

function childTable(children: Map<string, TableBatch & { rows: Row[] }>, table: string, field: string, key: string): TableBatch & { rows: Row[] } {
  let child = children.get(field);
  if (!child) {
    child = { table: childTableName(table, field), rows: [], replace: { column: key, ids: [] } };
    children.set(field, child);
  }
  return child;
}

function isObjectArray(value: unknown): value is Row[] {
  return Array.isArray(value) && value.every(isRecord);
}

function isFieldMap(value: unknown): value is Record<string, { value: unknown }> {
  return isRecord(value) && Object.values(value).every((entry) => isRecord(entry) && 'value' in entry);
}
