/**
 * Walking a list endpoint the way the spec asks: the same filters and `limit`
 * on every page, `nextCursor` passed back as `cursor`, stop when `hasMore` is
 * false. The walk itself is the SDK's sliced reader (shared with `ferry
 * export`): one chain at `concurrency: 1`, time windows at once above it.
 * Items are yielded one by one as parsed JSON objects.
 */
import { z } from 'zod';
import { FerryError, readSlicedList, type ListAnswer, type ListQuery, type ServiceResource, type SourceData } from '../../../src/sdk/index.js';
import type { ServiceHttp } from './http.js';

const item = z.record(z.string(), z.json());

const pagination = z.object({
  pagination: z.object({ nextCursor: z.string().nullable().optional(), hasMore: z.boolean().optional() }),
});

/** Parse a JSON answer or fail naming the endpoint and the first problem. */
export function parseAnswer<T extends z.ZodType>(schema: T, body: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new FerryError('FERRY_SOURCE_READ_FAILED', `${what}: unexpected answer (${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'})`, {
    hint: 'is baseUrl the root of the service (the URL before /v1)?',
  });
}

export const itemSchema = item;

/** One page of a list, checked: items parsed, and a page that claims more carries a new cursor. */
export async function fetchListPage(http: ServiceHttp, spec: ServiceResource, query: ListQuery, signal: AbortSignal): Promise<ListAnswer> {
  const body = await http.getJson(spec.path, query, signal);
  const page = parseAnswer(pagination, body, `GET ${spec.path}`);
  const items = parseAnswer(z.object({ [spec.itemsKey]: z.array(item) }), body, `GET ${spec.path}`)[spec.itemsKey] ?? [];
  const { hasMore = false, nextCursor } = page.pagination;
  if (hasMore && (nextCursor === null || nextCursor === undefined || nextCursor === '' || nextCursor === query.cursor)) {
    // Without a new cursor the next request would return this page again, forever.
    throw new FerryError('FERRY_SOURCE_READ_FAILED', `GET ${spec.path}: the service said hasMore but gave no new nextCursor`, {
      details: { path: spec.path },
    });
  }
  return { items: items, hasMore, nextCursor };
}

/**
 * Every item of a list, page after page (in list order at concurrency 1).
 * With `detail`, each item is replaced by what it returns (undefined: the
 * item is dropped), fetched behind the pages under the same `concurrency`.
 */
export async function* listItems(
  http: ServiceHttp,
  spec: ServiceResource,
  query: ListQuery,
  signal: AbortSignal,
  concurrency = 1,
  detail?: (item: SourceData, signal: AbortSignal) => Promise<SourceData | undefined>,
): AsyncGenerator<SourceData> {
  const { limit, ...filters } = query;
  const pages = readSlicedList({
    resource: spec,
    query: filters,
    fetchPage: (pageQuery, pageSignal) => fetchListPage(http, spec, pageQuery, pageSignal),
    ...(detail ? { detail: (item: Record<string, unknown>, itemSignal: AbortSignal) => detail(item as SourceData, itemSignal) } : {}),
    concurrency,
    ...(typeof limit === 'number' ? { pageSize: limit } : {}),
    signal,
  });
  for await (const page of pages) {
    for (const entry of page.items) {
      signal.throwIfAborted();
      yield entry as SourceData;
    }
  }
}
