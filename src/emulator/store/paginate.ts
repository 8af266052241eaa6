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
  decode: (row: Row) => Item;
  keep?: (item: Item) => boolean;
  keyOf: (row: Row) => { sortMs: number; id: string };
}

export function paginate<Row, Item>(db: Db, query: PageQuery<Row, Item>): Page<Item> {
  const where = [...query.where];
  const params = [...query.params];
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.list, query.cursor);
    where.push(`(sort_ms < ? OR (sort_ms = ? AND ${query.idColumn} < ?))`);
    params.push(after.sortMs, after.sortMs, after.id);
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
