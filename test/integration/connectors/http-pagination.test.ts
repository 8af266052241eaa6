import { afterEach, describe, expect, it } from 'vitest';
import http from '../../../connectors/sources/http/index.js';
import { isFerryError } from '../../../src/sdk/index.js';
import { items, readAll, rejection, startApi, type TestApi } from './http-fixture.js';

const ALL = items(25);
let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const ids = (records: { data: Record<string, unknown> }[]) => records.map((record) => record.data.id);
const expectedIds = ALL.map((item) => item.id);

describe('http source pagination', () => {
  it('cursor in the body, stopping when has_more is false', async () => {
    api = await startApi(({ url }) => {
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const page = ALL.slice(start, start + 10);
      const more = start + 10 < ALL.length;
      // The last page still carries a cursor: only has_more says stop.
      return { json: { data: { items: page }, meta: { next_cursor: String(start + 10), has_more: more } } };
    });
    const records = await readAll(http, {
      baseUrl: api.url,
      path: '/items',
      recordSelector: '$.data.items',
      primaryKey: 'id',
      pagination: { type: 'cursor', cursorPath: '$.meta.next_cursor', param: 'cursor', stopPath: '$.meta.has_more' },
    });
    expect(ids(records)).toEqual(expectedIds);
    expect(api.requests.map((r) => r.url.searchParams.get('cursor'))).toEqual([null, '10', '20']);
    expect(records[12]!.origin).toEqual({ stream: '/items', url: `${api.url}/items?cursor=10`, key: '13' });
  });

  it('cursor stops when the next cursor is null, keeping the stream params', async () => {
    api = await startApi(({ url }) => {
      const start = Number(url.searchParams.get('after') ?? 0);
      const next = start + 10 < ALL.length ? start + 10 : null;
      return { json: { results: ALL.slice(start, start + 10), next } };
    });
    const records = await readAll(http, {
      baseUrl: `${api.url}/api/v1/`,
      path: 'items',
      params: { status: 'open', limit: 10 },
      recordSelector: 'results',
      pagination: { type: 'cursor', cursorPath: 'next', param: 'after' },
    });
    expect(ids(records)).toEqual(expectedIds);
    expect(api.requests).toHaveLength(3);
    for (const request of api.requests) {
      expect(request.url.pathname).toBe('/api/v1/items');
      expect(request.url.searchParams.get('status')).toBe('open');
      expect(request.url.searchParams.get('limit')).toBe('10');
    }
  });

  it('cursor in a POST body', async () => {
    api = await startApi(({ body }) => {
      const sent = JSON.parse(body) as { filter: string; start_cursor?: string };
      expect(sent.filter).toBe('all');
      const start = Number(sent.start_cursor ?? 0);
      return { json: { results: ALL.slice(start, start + 10), next_cursor: start + 10 < ALL.length ? String(start + 10) : null } };
    });
    const records = await readAll(http, {
      baseUrl: api.url,
      path: '/search',
      method: 'POST',
      body: { filter: 'all' },
      recordSelector: '$.results[*]',
      pagination: { type: 'cursor', cursorPath: '$.next_cursor', param: 'start_cursor', in: 'body' },
    });
    expect(ids(records)).toEqual(expectedIds);
    expect(api.requests.every((r) => r.method === 'POST' && r.headers['content-type'] === 'application/json')).toBe(true);
  });

  it('next link in the body, relative and absolute', async () => {
    api = await startApi(({ url }) => {
      const page = Number(url.searchParams.get('p') ?? 1);
      const next = page === 1 ? '/items?p=2' : page === 2 ? `${api!.url}/items?p=3` : null;
      return { json: { data: ALL.slice((page - 1) * 10, page * 10), links: { next } } };
    });
    const records = await readAll(http, {
      baseUrl: api.url,
      path: '/items',
      recordSelector: '$.data',
      pagination: { type: 'nextLink', path: '$.links.next' },
    });
    expect(ids(records)).toEqual(expectedIds);
    expect(api.requests.map((r) => r.url.search)).toEqual(['', '?p=2', '?p=3']);
  });

  it('RFC 8288 Link header', async () => {
    api = await startApi(({ url }) => {
      const page = Number(url.searchParams.get('page') ?? 1);
      const links = [`<${api!.url}/items?page=${Math.ceil(ALL.length / 10)}>; rel="last"`];
      if (page * 10 < ALL.length) links.unshift(`</items?page=${page + 1}&per_page=10>; rel="next"`);
      return { json: ALL.slice((page - 1) * 10, page * 10), headers: { link: links.join(', ') } };
    });
    const records = await readAll(http, { baseUrl: api.url, path: '/items', pagination: { type: 'linkHeader' } });
    expect(ids(records)).toEqual(expectedIds);
    expect(api.requests).toHaveLength(3);
  });

  it('page numbers, stopping on a short page when the size is known', async () => {
    api = await startApi(({ url }) => {
      const page = Number(url.searchParams.get('page'));
      const size = Number(url.searchParams.get('per_page'));
      return { json: ALL.slice((page - 1) * size, page * size) };
    });
    const records = await readAll(http, {
      baseUrl: api.url,
      path: '/items',
      pagination: { type: 'page', param: 'page', start: 1, sizeParam: 'per_page', size: 10 },
    });
    expect(ids(records)).toEqual(expectedIds);
    expect(api.requests.map((r) => r.url.search)).toEqual(['?page=1&per_page=10', '?page=2&per_page=10', '?page=3&per_page=10']);
  });

  it('page numbers from 0, stopping on an empty page when the size is not known', async () => {
    api = await startApi(({ url }) => {
      const page = Number(url.searchParams.get('pg'));
      return { json: { rows: ALL.slice(page * 10, (page + 1) * 10) } };
    });
    const records = await readAll(http, { baseUrl: api.url, path: '/items', recordSelector: 'rows', pagination: { type: 'page', param: 'pg', start: 0 } });
    expect(ids(records)).toEqual(expectedIds);
    expect(api.requests.map((r) => r.url.searchParams.get('pg'))).toEqual(['0', '1', '2', '3']);
  });

  it('offset and limit', async () => {
    api = await startApi(({ url }) => {
      const offset = Number(url.searchParams.get('offset'));
      const limit = Number(url.searchParams.get('limit'));
      return { json: { items: ALL.slice(offset, offset + limit) } };
    });
    const records = await readAll(http, { baseUrl: api.url, path: '/items', recordSelector: 'items', pagination: { type: 'offset', limit: 10 } });
    expect(ids(records)).toEqual(expectedIds);
    expect(api.requests.map((r) => r.url.search)).toEqual(['?offset=0&limit=10', '?offset=10&limit=10', '?offset=20&limit=10']);
  });

  it('no pagination: one request', async () => {
    api = await startApi(() => ({ json: ALL }));
    expect(await readAll(http, { baseUrl: api.url, path: '/items' })).toHaveLength(25);
    expect(api.requests).toHaveLength(1);
  });

  it('refuses to loop on a cursor the API returns again', async () => {
    api = await startApi(() => ({ json: { data: [{ id: 1 }], next: 'abc' } }));
    const error = await rejection(readAll(http, { baseUrl: api.url, path: '/items', recordSelector: 'data', pagination: { type: 'cursor', cursorPath: 'next' } }));
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(/pagination loops at .*cursor=abc/);
    expect(api.requests).toHaveLength(2);
  });

  it('refuses to loop on a next link pointing at itself', async () => {
    api = await startApi(() => ({ json: { data: [{ id: 1 }], next: '/items' } }));
    const error = await rejection(readAll(http, { baseUrl: api.url, path: '/items', recordSelector: 'data', pagination: { type: 'nextLink', path: 'next' } }));
    expect((error as Error).message).toMatch(/pagination loops/);
  });

  it('refuses to loop when the API ignores the page parameter', async () => {
    api = await startApi(() => ({ json: ALL.slice(0, 10) }));
    const error = await rejection(readAll(http, { baseUrl: api.url, path: '/items', pagination: { type: 'page', size: 10 } }));
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(/page 2 repeats page 1/);
    expect(api.requests).toHaveLength(2);
  });
});

describe('http source record selectors', () => {
  it('reads a top-level array with $', async () => {
    api = await startApi(() => ({ json: [{ id: 1 }, { id: 2 }] }));
    expect(ids(await readAll(http, { baseUrl: api.url, path: '/x', recordSelector: '$' }))).toEqual([1, 2]);
  });

  it('reads quoted keys and indexes', async () => {
    api = await startApi(() => ({ json: { 'odd key': [{ rows: [{ id: 7 }, { id: 8 }] }] } }));
    expect(ids(await readAll(http, { baseUrl: api.url, path: '/x', recordSelector: "$['odd key'][0].rows" }))).toEqual([7, 8]);
  });

  it('fans out with [*] across nested arrays', async () => {
    api = await startApi(() => ({ json: { groups: [{ members: [{ id: 1 }, { id: 2 }] }, { members: [{ id: 3 }] }] } }));
    expect(ids(await readAll(http, { baseUrl: api.url, path: '/x', recordSelector: '$.groups[*].members[*]' }))).toEqual([1, 2, 3]);
  });

  it('takes a single object as one record and wraps bare values', async () => {
    api = await startApi(({ url }) => ({ json: url.pathname === '/one' ? { item: { id: 5 } } : [11, 12] }));
    expect(ids(await readAll(http, { baseUrl: api.url, path: '/one', recordSelector: 'item' }))).toEqual([5]);
    const wrapped = await readAll(http, { baseUrl: api.url, path: '/ids' });
    expect(wrapped.map((r) => r.data)).toEqual([{ value: 11 }, { value: 12 }]);
  });

  it('yields nothing when the selector matches nothing', async () => {
    api = await startApi(() => ({ json: { data: null } }));
    expect(await readAll(http, { baseUrl: api.url, path: '/x', recordSelector: 'data.items' })).toEqual([]);
  });
});
