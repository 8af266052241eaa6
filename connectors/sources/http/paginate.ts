/**
 * Walk an endpoint page by page in one of the pagination styles, yielding
 * each page's records. A request repeated within one walk (the same cursor
 * or next link twice), or a page identical to the one before, means the API
 * ignores the paging parameter: that is an error, never an endless loop.
 */
import { FerryError, type AnswerHeaders } from '../../../src/sdk/index.js';
import type { ApiClient, RequestContext } from './client.js';
import type { PaginationOption } from './options.js';
import { parseSelector, selectFirst, selectRecords, type Selector } from './selector.js';

/** The first request of a walk. */
export interface StreamRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  /** JSON body of a POST. */
  body?: Record<string, unknown>;
}

export interface Page {
  records: unknown[];
  /** The page's URL with secrets redacted: the records' origin. */
  url: string;
}

type Placement = 'query' | 'body';

export async function* paginate(
  client: ApiClient,
  first: StreamRequest,
  pagination: PaginationOption,
  recordSelector: Selector,
  context: RequestContext,
  maxPages?: number,
): AsyncGenerator<Page> {
  const strategy = createStrategy(pagination);
  let url = first.url;
  let paging: Record<string, string | number> = strategy.initial;
  let placement: Placement = strategy.placement;
  const requested = new Set<string>();
  let previousPage: string | undefined;
  /** How the next request's URL was found, when an answer gave it (a next link): checked against the origin policy. */
  let link: { how: string; from: URL } | undefined;
  for (let pageNumber = 1; ; pageNumber++) {
    if (maxPages !== undefined && pageNumber > maxPages) throw tooManyPages(client, url, context, maxPages);
    const request = build(first, url, paging, placement);
    const identity = `${request.url.toString()}\n${request.body ?? ''}`;
    if (requested.has(identity)) {
      throw loopError(client, request.url, context, `the API pointed back to a page already read (page ${pageNumber})`);
    }
    requested.add(identity);
    const response = await client.json(request, context, link);
    const records = selectRecords(recordSelector, response.body);
    if (strategy.detectsRepeats && records.length > 0) {
      const text = JSON.stringify(records);
      if (text === previousPage) throw loopError(client, request.url, context, `page ${pageNumber} repeats page ${pageNumber - 1}`);
      previousPage = text;
    }
    yield { records, url: client.redactor.url(response.url) };
    const next = strategy.next(response.body, response.headers, records.length, response.url);
    if (next === undefined) return;
    if (next.kind === 'link') {
      // A next link carries every parameter itself.
      link = { how: next.how, from: new URL(response.url) };
      url = next.url;
      paging = {};
      placement = 'query';
    } else {
      paging = next.params;
    }
  }
}

type Next = { kind: 'params'; params: Record<string, string | number> } | { kind: 'link'; url: URL; how: string } | undefined;

interface Strategy {
  initial: Record<string, string | number>;
  placement: Placement;
  /** Numbered pages can loop silently when the API ignores the parameter. */
  detectsRepeats: boolean;
  next(body: unknown, headers: AnswerHeaders, count: number, url: string): Next;
}

function createStrategy(pagination: PaginationOption): Strategy {
  switch (pagination.type) {
    case 'none':
      return { initial: {}, placement: 'query', detectsRepeats: false, next: () => undefined };
    case 'cursor': {
      const cursorPath = parseSelector(pagination.cursorPath);
      const stopPath = pagination.stopPath === undefined ? undefined : parseSelector(pagination.stopPath);
      return {
        initial: {},
        placement: pagination.in,
        detectsRepeats: false,
        next(body) {
          if (stopPath && !truthy(selectFirst(stopPath, body))) return undefined;
          const cursor = selectFirst(cursorPath, body);
          if (cursor === undefined || cursor === null || cursor === '' || typeof cursor === 'object') return undefined;
          return { kind: 'params', params: { [pagination.param]: String(cursor) } };
        },
      };
    }
    case 'nextLink': {
      const path = parseSelector(pagination.path);
      return {
        initial: {},
        placement: 'query',
        detectsRepeats: false,
        next(body, _headers, _count, url) {
          const link = selectFirst(path, body);
          return typeof link === 'string' && link.trim() !== '' ? { kind: 'link', url: new URL(link.trim(), url), how: 'follow a next link' } : undefined;
        },
      };
    }
    case 'linkHeader':
      return {
        initial: {},
        placement: 'query',
        detectsRepeats: false,
        next(_body, headers, _count, url) {
          const header = headers.link;
          const link = nextFromLinkHeader(Array.isArray(header) ? header.join(', ') : (header ?? null));
          return link === undefined ? undefined : { kind: 'link', url: new URL(link, url), how: 'follow a Link header' };
        },
      };
    case 'page': {
      const sizeParams = pagination.sizeParam !== undefined && pagination.size !== undefined ? { [pagination.sizeParam]: pagination.size } : {};
      let page = pagination.start;
      return {
        initial: { [pagination.param]: page, ...sizeParams },
        placement: pagination.in,
        detectsRepeats: true,
        next(_body, _headers, count) {
          if (count === 0 || (pagination.size !== undefined && count < pagination.size)) return undefined;
          page += 1;
          return { kind: 'params', params: { [pagination.param]: page, ...sizeParams } };
        },
      };
    }
    case 'offset': {
      let offset = 0;
      return {
        initial: { [pagination.param]: 0, [pagination.limitParam]: pagination.limit },
        placement: pagination.in,
        detectsRepeats: true,
        next(_body, _headers, count) {
          if (count === 0 || count < pagination.limit) return undefined;
          offset += count;
          return { kind: 'params', params: { [pagination.param]: offset, [pagination.limitParam]: pagination.limit } };
        },
      };
    }
  }
}

/** `has_more`-style flags: missing, null, false, 0, "false", "0" and "" all mean stop. */
function truthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0) return false;
  if (typeof value === 'string') return !['', 'false', '0', 'no'].includes(value.trim().toLowerCase());
  return true;
}

/** The `rel="next"` target of an RFC 8288 Link header. */
export function nextFromLinkHeader(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const params = match[2] ?? '';
    for (const param of params.matchAll(/;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/gi)) {
      const rels = (param[1] ?? param[2] ?? '').toLowerCase().split(/\s+/);
      if (rels.includes('next')) return match[1];
    }
  }
  return undefined;
}

function build(first: StreamRequest, url: URL, paging: Record<string, string | number>, placement: Placement): { method: 'GET' | 'POST'; url: URL; headers: Record<string, string>; body?: string } {
  const target = new URL(url);
  let body = first.body;
  if (placement === 'query') {
    for (const [name, value] of Object.entries(paging)) target.searchParams.set(name, String(value));
  } else {
    body = { ...(body ?? {}), ...paging };
  }
  return {
    method: first.method,
    url: target,
    headers: first.headers,
    ...(first.method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
  };
}

function tooManyPages(client: ApiClient, url: URL, context: RequestContext, maxPages: number): FerryError {
  return new FerryError('FERRY_SOURCE_RESPONSE_TOO_LARGE', `the stream has more than maxPages (${maxPages}) pages; the next one is ${client.redactor.url(url)}`, {
    where: context.where,
    hint: 'raise the stream\'s maxPages if the API really has that many pages, or check the pagination settings',
    details: { url: client.redactor.url(url), maxPages },
  });
}

function loopError(client: ApiClient, url: URL, context: RequestContext, what: string): FerryError {
  return new FerryError('FERRY_SOURCE_READ_FAILED', `pagination loops at ${client.redactor.url(url)}: ${what}`, {
    where: context.where,
    hint: 'check the pagination settings: the paging parameter name, cursorPath or next-link path',
    details: { url: client.redactor.url(url) },
  });
}
