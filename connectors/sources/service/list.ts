/**
 * Walking a list endpoint the way the spec asks: the same filters and `limit`
 * on every page, `nextCursor` passed back as `cursor`, stop when `hasMore` is
 * false. Items are yielded one by one as parsed JSON objects.
 */
import { z } from 'zod';
import { FerryError, type SourceData } from '../../../src/sdk/index.js';
import type { Query, ServiceHttp } from './http.js';
import type { ResourceSpec } from './resources.js';

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

/** Every item of a list, page after page. */
export async function* listItems(
  http: ServiceHttp,
  spec: ResourceSpec,
  query: Query,
  signal: AbortSignal,
  maxPages = Number.POSITIVE_INFINITY,
): AsyncGenerator<SourceData> {
  const items = z.object({ [spec.itemsKey]: z.array(item) });
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const body = await http.getJson(spec.path, { ...query, cursor }, signal);
    const page = parseAnswer(pagination, body, `GET ${spec.path}`);
    const entries = parseAnswer(items, body, `GET ${spec.path}`)[spec.itemsKey] ?? [];
    for (const entry of entries) {
      signal.throwIfAborted();
      yield entry as SourceData;
    }
    const { hasMore = false, nextCursor } = page.pagination;
    if (!hasMore || pages >= maxPages) return;
    if (nextCursor === null || nextCursor === undefined || nextCursor === '' || nextCursor === cursor) {
      // Without a new cursor the next request would return this page again, forever.
      throw new FerryError('FERRY_SOURCE_READ_FAILED', `GET ${spec.path}: the service said hasMore but gave no new nextCursor`, {
        details: { path: spec.path },
      });
    }
    cursor = nextCursor;
  }
}
