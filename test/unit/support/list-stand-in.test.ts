/**
 * The list stand-in pages a list in time order by binary search; it must
 * answer exactly what filtering the whole list answers, for every order,
 * either kind of bound, items without the field, and bounds that fall on,
 * between and outside the items' times.
 */
import { describe, expect, it } from 'vitest';
import type { ListItem, ListQuery } from '../../../src/sdk/index.js';
import { ListStandIn } from '../../support/list-stand-in.js';

const window = { field: 'at', after: 'after', before: 'before', nullable: true };
const T0 = Date.UTC(2025, 0, 1);
const items: ListItem[] = Array.from({ length: 120 }, (_, i) => ({
  id: `i${i}`,
  // Ties (every third shares a time), a gap, and a few without the field.
  ...(i % 17 === 5 ? {} : { at: new Date(T0 + Math.floor(i / 3) * 60_000 + (i > 60 ? 3_600_000 : 0)).toISOString() }),
}));

function filtered(bounds: 'inclusive' | 'exclusive', order: 'time' | 'newest', query: ListQuery): string[] {
  const time = (item: ListItem) => (typeof item.at === 'string' ? Date.parse(item.at) : Number.NaN);
  const ordered = [...items].sort((a, b) => (time(a) || -Infinity) - (time(b) || -Infinity));
  if (order === 'newest') ordered.reverse();
  const after = typeof query.after === 'string' ? Date.parse(query.after) : undefined;
  const before = typeof query.before === 'string' ? Date.parse(query.before) : undefined;
  return ordered
    .filter((item) => {
      if (after === undefined && before === undefined) return true;
      const at = time(item);
      if (Number.isNaN(at)) return false;
      if (after !== undefined && (bounds === 'inclusive' ? at < after : at <= after)) return false;
      return before === undefined || (bounds === 'inclusive' ? at <= before : at < before);
    })
    .map((item) => String(item.id));
}

function pagedThrough(standIn: ListStandIn, query: ListQuery, limit: number): string[] {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 200; pages++) {
    const answer = standIn.page({ ...query, limit, ...(cursor === undefined ? {} : { cursor }) });
    ids.push(...answer.items.map((item) => String(item.id)));
    if (!answer.hasMore) return ids;
    cursor = answer.nextCursor!;
  }
  throw new Error('the stand-in never said the list ended');
}

describe('ListStandIn.page', () => {
  const edges = [undefined, T0 - 1, T0, T0 + 60_000, T0 + 90_000, T0 + 20 * 60_000, T0 + 3_600_000 + 25 * 60_000, T0 + 10 * 3_600_000];
  const iso = (at: number | undefined) => (at === undefined ? undefined : new Date(at).toISOString());

  for (const bounds of ['inclusive', 'exclusive'] as const) {
    for (const order of ['time', 'newest'] as const) {
      it(`answers what filtering the whole list answers (${bounds} bounds, ${order} order)`, () => {
        const standIn = new ListStandIn({ items, window, itemsKey: 'items', bounds, order });
        let compared = 0;
        for (const after of edges) {
          for (const before of edges) {
            const query: ListQuery = { ...(after === undefined ? {} : { after: iso(after)! }), ...(before === undefined ? {} : { before: iso(before)! }) };
            const expected = filtered(bounds, order, query);
            expect(pagedThrough(standIn, query, 7), JSON.stringify(query)).toEqual(expected);
            compared += expected.length;
          }
        }
        expect(compared).toBeGreaterThan(1000);
      });
    }
  }
});
