/**
 * Rows into PostgreSQL through `COPY … FROM STDIN` (text format): one
 * stream per batch instead of bound parameters, which is what makes
 * postgres-table load at COPY speed. Values are encoded as the column's type
 * expects them; Postgres parses and checks them, so a value the column
 * cannot hold fails the COPY and rolls the batch back.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { quoteIdentifier } from '../_export/columns.js';

/** Rows encoded per chunk written to the COPY stream. */
const ROWS_PER_CHUNK = 1000;

/** COPY rows into `table` (already quoted) for the named columns of the given Postgres types. */
export async function copyRows(client: pg.Client, table: string, names: readonly string[], types: readonly string[], rows: readonly Readonly<Record<string, unknown>>[]): Promise<void> {
  const sql = `COPY ${table} (${names.map(quoteIdentifier).join(', ')}) FROM STDIN`;
  await pipeline(Readable.from(chunks(names, types, rows)), client.query(copyFrom(sql)));
}

function* chunks(names: readonly string[], types: readonly string[], rows: readonly Readonly<Record<string, unknown>>[]): Generator<string> {
  for (let start = 0; start < rows.length; start += ROWS_PER_CHUNK) {
    let text = '';
    for (const row of rows.slice(start, start + ROWS_PER_CHUNK)) text += copyLine(names.map((name, i) => row[name] === undefined ? null : copyValue(row[name], types[i]!)));
    yield text;
  }
}

/** One line of COPY text: fields separated by tabs, `\N` for null. */
export function copyLine(fields: readonly (string | null)[]): string {
  return `${fields.map((field) => (field === null ? '\\N' : escapeCopy(field))).join('\t')}\n`;
}

/** A value as COPY text for a column of the given Postgres type; null for SQL NULL. */
export function copyValue(value: unknown, type: string): string | null {
  if (value === null || value === undefined) return null;
  if (type === 'jsonb' || type === 'json') return JSON.stringify(value);
  if (typeof value === 'boolean') return type === 'boolean' ? (value ? 't' : 'f') : String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

/** Backslash, tab, newline and carriage return are the characters COPY's text format gives meaning to. */
function escapeCopy(text: string): string {
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : text;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
