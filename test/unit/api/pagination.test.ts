import { describe, expect, it } from 'vitest';
import { paginate } from '../../../src/api/pagination.js';

const page = (items: number[], nextCursor: string | null, hasMore: boolean) => ({ items, pagination: { nextCursor, hasMore } });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('paginate', () => {
  it('passes each nextCursor on and stops on hasMore false even with a cursor', async () => {
    const cursors: (string | undefined)[] = [];
    const pages = await collect(
      paginate('listRows', async (cursor) => {
        cursors.push(cursor);
        if (cursor === undefined) return page([1, 2], 'a', true);
        if (cursor === 'a') return page([3], 'b', true);
        return page([], 'c', false);
      }),
    );
    expect(pages.flatMap((p) => p.items)).toEqual([1, 2, 3]);
    expect(cursors).toEqual([undefined, 'a', 'b']);
  });

  it('fetches nothing more after the consumer stops', async () => {
    let calls = 0;
    for await (const _ of paginate('listRows', async () => (calls++, page([1], `c${calls}`, true)))) break;
    expect(calls).toBe(1);
  });

  it('refuses hasMore without a cursor, and a repeated cursor', async () => {
    await expect(collect(paginate('listDeals', async () => page([], null, true)))).rejects.toMatchObject({ code: 'FERRY_SERVICE_ERROR' });
    await expect(collect(paginate('listDeals', async () => page([], 'same', true)))).rejects.toThrow(/same cursor twice/);
  });
});
