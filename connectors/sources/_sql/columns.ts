/**
 * The column model every SQL driver describes its tables and queries with,
 * and how a column's kind maps to an object-type field type.
 */
import type { FieldType } from '../../../src/sdk/index.js';

/** What a database type means to ferry: how values convert, bind and map to field types. */
export type ColumnKind =
  | 'int'
  | 'decimal'
  | 'float'
  | 'boolean'
  | 'timestamp'
  | 'date'
  | 'string'
  | 'text'
  | 'json'
  | 'array'
  | 'binary'
  | 'other';

export interface SqlColumn {
  name: string;
  /** The database's own type name, for display (`timestamp with time zone`, `decimal(30,10)`). */
  dbType: string;
  kind: ColumnKind;
  nullable: boolean;
  /** A type name the dialect can cast a bound text parameter to (PostgreSQL); unsigned integers (MySQL). */
  castType?: string;
  unsigned?: boolean;
}

export interface TableInfo {
  columns: SqlColumn[];
  primaryKey: string[];
  estimatedCount?: number;
}

const FIELD_TYPE: Record<ColumnKind, FieldType> = {
  int: 'int',
  decimal: 'double',
  float: 'double',
  boolean: 'boolean',
  timestamp: 'datetime',
  date: 'date',
  string: 'string',
  text: 'textarea',
  // JSON objects have no field type of their own; they travel as JSON text.
  json: 'textarea',
  array: 'list',
  // Binary values are emitted as base64 text.
  binary: 'textarea',
  other: 'string',
};

export function fieldTypeOf(kind: ColumnKind): FieldType {
  return FIELD_TYPE[kind];
}

/** Kinds whose values order meaningfully as an incremental cursor. */
export function isCursorKind(kind: ColumnKind): boolean {
  return kind === 'int' || kind === 'decimal' || kind === 'float' || kind === 'timestamp' || kind === 'date';
}
