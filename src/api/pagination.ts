/**
 * Cursor pagination as the spec defines it: the caller repeats its filters and
 * `limit` on every request, passes `nextCursor` as `cursor`, and stops when
 * `hasMore` is false (not when the cursor is null).
 */
import { FerryError } from '../sdk/errors.js';

export interface PageLike {
  readonly pagination: { readonly nextCursor: string | null; readonly hasMore: boolean };
}

/**
 * Yield pages from `fetchPage(cursor)` until the service says there are no
 * more. A page that claims more but gives no new cursor would make the loop
 * fetch the same page forever, so it ends the iteration with an error instead.
 */
export async function* paginate<P extends PageLike>(
  endpoint: string,
  fetchPage: (cursor: string | undefined) => Promise<P>,
): AsyncGenerator<P, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield page;
    const { hasMore, nextCursor } = page.pagination;
    if (!hasMore) return;
    if (nextCursor === null || nextCursor === '') {
      throw new FerryError('FERRY_SERVICE_ERROR', `${endpoint}: the service said hasMore but returned no nextCursor`, {
        details: { endpoint },
      });
    }
    if (nextCursor === cursor) {
      throw new FerryError('FERRY_SERVICE_ERROR', `${endpoint}: the service returned the same cursor twice; stopping to avoid a loop`, {
        details: { endpoint },
      });
    }
    cursor = nextCursor;
  }
}
