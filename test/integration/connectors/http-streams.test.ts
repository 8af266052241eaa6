import { afterEach, describe, expect, it } from 'vitest';
import http from '../../../connectors/sources/http/index.js';
import { describeSourceConformance, type CursorPosition, type SourceRecord } from '../../../src/sdk/index.js';
import { context, items, readAll, startApi, type TestApi } from './http-fixture.js';

let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** An API over `rows` that filters with `updated_since` (inclusive, as many APIs do) and pages by cursor. */
function ticketsApi(rows: { id: number; updated_at: string }[]) {
  return startApi(({ url }) => {
    const since = url.searchParams.get('updated_since');
    const sinceMs = since === null ? -Infinity : /^\d+$/.test(since) ? Number(since) * 1000 : Date.parse(since);
    const matching = rows.filter((row) => Date.parse(row.updated_at) >= sinceMs).sort((a, b) => a.updated_at.localeCompare(b.updated_at));
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const next = start + 3 < matching.length ? String(start + 3) : null;
    return { json: { tickets: matching.slice(start, start + 3), next } };
  });
}

const tickets = (url: string, extra: Record<string, unknown> = {}) => ({
  baseUrl: url,
  path: '/tickets',
  recordSelector: 'tickets',
  primaryKey: 'id',
  pagination: { type: 'cursor' as const, cursorPath: 'next' },
  incremental: { param: 'updated_since' },
  ...extra,
});

function highest(records: SourceRecord[]): CursorPosition {
  const last = records.at(-1)!;
  return { value: last.cursor!, key: last.origin.key! };
}

describe('http source incremental reads', () => {
  it('first run sends no parameter; the second sends the stored cursor and yields only newer records', async () => {
    const rows = items(7);
    api = await ticketsApi(rows);
    const first = await readAll(http, tickets(api.url), { incremental: { cursorField: 'updated_at' } });
    expect(first).toHaveLength(7);
    expect(first.every((r) => r.cursor === r.data.updated_at)).toBe(true);
    expect(api.requests.every((r) => !r.url.searchParams.has('updated_since'))).toBe(true);

    rows.push(...items(2, 8));
    api.requests.length = 0;
    const after = highest(first);
    const second = await readAll(http, tickets(api.url), { incremental: { cursorField: 'updated_at', after } });
    expect(api.requests[0]!.url.searchParams.get('updated_since')).toBe(after.value);
    // The API answers ">=": record 7 comes back and is dropped client-side.
    expect(second.map((r) => r.data.id)).toEqual([8, 9]);
  });

  it('formats the parameter as Unix seconds and applies lag', async () => {
    api = await ticketsApi(items(5));
    const after = { value: '2024-01-01T00:05:00.000Z', key: '5' };
    const records = await readAll(http, tickets(api.url, { incremental: { param: 'updated_since', format: 'unix' } }), {
      incremental: { cursorField: 'updated_at', after, lag: 120 },
    });
    expect(api.requests[0]!.url.searchParams.get('updated_since')).toBe(String(Date.UTC(2024, 0, 1, 0, 3) / 1000));
    // With lag the window below the cursor is re-emitted (the runner's fingerprints skip unchanged ones).
    expect(records.map((r) => r.data.id)).toEqual([4, 5]);
  });

  it('sends `start` when there is no stored cursor yet', async () => {
    api = await ticketsApi(items(5));
    const records = await readAll(http, tickets(api.url, { incremental: { param: 'updated_since', format: 'iso', start: '2024-01-01 00:04:00+00:00' } }), {
      incremental: { cursorField: 'updated_at' },
    });
    expect(api.requests[0]!.url.searchParams.get('updated_since')).toBe('2024-01-01T00:04:00.000Z');
    expect(records.map((r) => r.data.id)).toEqual([4, 5]);
  });

  it('reads the cursor through a dot path', async () => {
    api = await startApi(() => ({ json: [{ id: 1, meta: { seq: 3 } }, { id: 2, meta: { seq: 9 } }] }));
    const records = await readAll(http, { baseUrl: api.url, path: '/x', primaryKey: 'id' }, { incremental: { cursorField: 'meta.seq', after: { value: 3, key: '1' } } });
    expect(records.map((r) => [r.data.id, r.cursor])).toEqual([[2, 9]]);
  });
});

describe('http source parent and child streams', () => {
  const accounts = [{ id: 'a1', name: 'Acme' }, { id: 'a/2', name: 'Slash & Co' }, { id: 'a3', name: 'Empty' }];
  const users: Record<string, { uid: number }[]> = { a1: [{ uid: 1 }, { uid: 2 }, { uid: 3 }], 'a/2': [{ uid: 4 }], a3: [] };

  function crmApi() {
    return startApi(({ url }) => {
      if (url.pathname === '/accounts') {
        const page = Number(url.searchParams.get('page'));
        return { json: { data: accounts.slice((page - 1) * 2, page * 2) } };
      }
      const match = /^\/accounts\/([^/]+)\/users$/.exec(url.pathname);
      if (match) {
        const list = users[decodeURIComponent(match[1]!)] ?? [];
        const offset = Number(url.searchParams.get('offset'));
        return { json: { users: list.slice(offset, offset + 2) } };
      }
      return { status: 404, json: { error: 'nope' } };
    });
  }

  const crm = (url: string, stream = 'users') => ({
    baseUrl: url,
    stream,
    streams: [
      { name: 'accounts', path: '/accounts', recordSelector: 'data', primaryKey: 'id', pagination: { type: 'page' as const, size: 2 } },
      {
        name: 'users',
        path: '/accounts/{account_id}/users',
        recordSelector: 'users',
        primaryKey: 'uid',
        pagination: { type: 'offset' as const, limit: 2 },
        parent: { stream: 'accounts', key: 'id', as: 'account_id' },
        includeParentKey: true,
      },
    ],
  });

  it('calls the child path once per parent record, with the key substituted and kept on each record', async () => {
    api = await crmApi();
    const records = await readAll(http, crm(api.url));
    expect(records.map((r) => r.data)).toEqual([
      { uid: 1, account_id: 'a1' },
      { uid: 2, account_id: 'a1' },
      { uid: 3, account_id: 'a1' },
      { uid: 4, account_id: 'a/2' },
    ]);
    expect(records[3]!.origin).toEqual({ stream: 'users', url: `${api.url}/accounts/a%2F2/users?offset=0&limit=2`, key: '4' });
    expect(api.to('/accounts')).toHaveLength(2);
    expect(api.to('/accounts/a1/users')).toHaveLength(2);
    expect(api.to('/accounts/a3/users')).toHaveLength(1);
  });

  it('reads the parent stream alone when it is the one selected', async () => {
    api = await crmApi();
    const records = await readAll(http, crm(api.url, 'accounts'));
    expect(records.map((r) => r.data.id)).toEqual(['a1', 'a/2', 'a3']);
    expect(api.requests.every((r) => r.url.pathname === '/accounts')).toBe(true);
  });

  it('discovers every stream from its first page, sampling one parent for a child', async () => {
    api = await crmApi();
    const streams = await http.discover(context(http, crm(api.url)));
    expect(streams.map((s) => [s.name, s.fields.map((f) => `${f.name}:${f.type}`), s.primaryKey])).toEqual([
      ['accounts', ['id:string', 'name:string'], ['id']],
      ['users', ['uid:int', 'account_id:string'], ['uid']],
    ]);
    expect(api.to('/accounts')).toHaveLength(2); // one for each stream
    expect(api.requests.filter((r) => r.url.pathname.endsWith('/users'))).toHaveLength(1);
  });

  it('check() sends one request to the first stream', async () => {
    api = await crmApi();
    await http.check!(context(http, crm(api.url)));
    expect(api.requests.map((r) => r.url.pathname)).toEqual(['/accounts']);
  });
});

// The SDK's conformance kit against a sorted, incremental API.
const conformanceRows = items(9);
let conformanceApi: TestApi | undefined;
await describeSourceConformance(http, {
  title: 'source conformance: http (cursor pages, updated_since)',
  setup: async () => {
    conformanceApi = await ticketsApi(conformanceRows);
  },
  teardown: () => conformanceApi?.close(),
  options: () => tickets(conformanceApi!.url),
  expectedCount: 9,
  primaryKey: ['id'],
  cursorField: 'updated_at',
  sorted: true,
  interruptAfter: 4,
});
