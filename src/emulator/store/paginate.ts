/**
 * Keyset pagination shared by every list: rows come newest first by
 * (sort_ms, id), SQL narrows what it can, a JS predicate does the rest (JSON
 * fields such as participants), and iteration stops after limit + 1 matches.
 * Filters never shift page boundaries because the cursor is the last key seen.
 */
import { prepared, type Db } from './database.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { Page } from './types.js';

export interface PageQuery<Row, Item> {
  /** Name of the list, written into its cursors. */
  list: string;
  table: string;
  idColumn: string;
  /** SQL conditions (ANDed) and their parameters. */
  where: string[];
  params: unknown[];
  limit: number;
  cursor?: string | undefined;
  /** Keep rows with `sort_ms` at most this: sought in the index as the cursor is (a time window's upper end). */
  sortTo?: number | undefined;
  decode: (row: Row) => Item;
  keep?: (item: Item) => boolean;
  keyOf: (row: Row) => { sortMs: number; id: string };
}

export function paginate<Row, Item>(db: Db, query: PageQuery<Row, Item>): Page<Item> {
  const where = [...query.where];
  const params = [...query.params];
  // Where the page starts, as one row value below which rows are listed: the cursor's key, or just
  // above the window's upper end (no id is below ''). One row value is what SQLite seeks the list
  // index to; `sort_ms < ? OR (sort_ms = ? AND id < ?)`, or an upper bound beside the cursor, made it
  // scan the index from the newest row (or the window's top) down to the cursor on every page.
  const window = query.sortTo === undefined ? undefined : { sortMs: query.sortTo + 1, id: '' };
  const cursor = query.cursor === undefined ? undefined : decodeCursor(query.list, query.cursor);
  const start = cursor && window ? (compareKeys(cursor, window) < 0 ? cursor : window) : (cursor ?? window);
  if (start) {
    where.push(`(sort_ms, ${query.idColumn}) < (?, ?)`);
    params.push(start.sortMs, start.id);
  }
  const sql =
    `SELECT * FROM ${query.table}` +
    (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY sort_ms DESC, ${query.idColumn} DESC`;
  const items: Item[] = [];
  let lastKey: { sortMs: number; id: string } | undefined;
  let hasMore = false;
  for (const row of prepared(db, sql).iterate(params) as IterableIterator<Row>) {
    const item = query.decode(row);
    if (query.keep && !query.keep(item)) continue;
    if (items.length === query.limit) {
      hasMore = true;
      break;
    }
    items.push(item);
    lastKey = query.keyOf(row);
  }
  return {
    items,
    hasMore,
    nextCursor: hasMore && lastKey ? encodeCursor(query.list, lastKey) : null,
  };
}

function compareKeys(a: { sortMs: number; id: string }, b: { sortMs: number; id: string }): number {
  return a.sortMs - b.sortMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
