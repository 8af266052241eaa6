import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import service from '../../../connectors/sources/service/index.js';
import { ServiceHttp } from '../../../connectors/sources/service/http.js';
import { ServiceClient } from '../../../src/api/client.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { describeSourceConformance, isFerryError } from '../../../src/sdk/index.js';
import { dealObjectType, dealRow, harperValleyConversation } from '../api/fixtures.js';
import { readAll, readContext, rejection, type Captured } from './helpers.js';

const KEY = 'sk_live_secret_source_key_123';

describe('service source: options', () => {
  const base = { baseUrl: 'https://api.example.com', apiKey: KEY };

  it('accepts a complete configuration and fills defaults', () => {
    const parsed = service.options.parse({ ...base, resource: 'rows', filters: { objectTypeId: 'x' } });
    expect(parsed).toMatchObject({ resource: 'rows', details: false, pageSize: 50, pushDown: true, filters: { objectTypeId: 'x' } });
  });

  it('refuses filters the list does not take, cursor/limit, pages over 50 and non-http URLs', () => {
    const messages = (input: unknown) => service.options.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(messages({ ...base, resource: 'documents', filters: { createdAfter: '2024-01-01' } })[0]).toMatch(/filters.createdAfter: documents cannot be filtered by "createdAfter"/);
    expect(messages({ ...base, resource: 'rows', filters: { limit: 5 } })[0]).toMatch(/managed by the connector/);
    expect(messages({ ...base, resource: 'rows', pageSize: 51 })[0]).toMatch(/^pageSize/);
    expect(messages({ ...base, baseUrl: 'embedded', resource: 'rows' })[0]).toMatch(/http\(s\) URL/);
    expect(messages({ ...base, resource: 'calls' })[0]).toMatch(/^resource/);
  });
});

describe('service source: HTTP', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

  function scripted(answers: (Response | Error)[]) {
    const calls: { url: string; auth: string | null }[] = [];
    const fetchStub = (async (url: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(url), auth: new Headers(init?.headers).get('authorization') });
      const next = answers.shift();
      if (!next) throw new Error('no more scripted answers');
      if (next instanceof Error) throw next;
      return next;
    }) as typeof fetch;
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    return { calls, waits, seams: { fetch: fetchStub, sleep, random: () => 0.5 } };
  }

  it('repeats 429 after the Retry-After the service asked for, and 5xx and dropped connections with backoff', async () => {
    const script = scripted([
      answer(429, { detail: 'slow down' }, { 'retry-after': '2' }),
      answer(503, { detail: 'busy' }),
      new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }),
      Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }),
      answer(200, { ok: true }),
    ]);
    const http = new ServiceHttp('https://user:pw@api.example.com/', KEY, { maxAttempts: 5, timeoutMs: 1000 }, script.seams);
    await expect(http.getJson('/v1/rows', { limit: 5 }, new AbortController().signal)).resolves.toEqual({ ok: true });
    expect(script.waits).toEqual([2000, 250, 500, 1000]);
    expect(script.calls.map((c) => c.url)).toEqual(Array(5).fill('https://api.example.com/v1/rows?limit=5'));
    expect(script.calls.every((c) => c.auth === `Bearer ${KEY}`)).toBe(true);
  });

  it('does not repeat a failure that is not the network (a bad request built here)', async () => {
    const script = scripted([new TypeError('Invalid header value'), answer(200, {})]);
    const http = new ServiceHttp('https://api.example.com', KEY, { maxAttempts: 5, timeoutMs: 1000 }, script.seams);
    const error = await rejection(http.getJson('/v1/rows', {}, new AbortController().signal));
    expect(isFerryError(error, 'FERRY_SOURCE_UNREACHABLE')).toBe(true);
    expect(script.calls).toHaveLength(1);
  });

  it('gives up after maxAttempts with FERRY_SOURCE_UNREACHABLE', async () => {
    const script = scripted([answer(500, { detail: 'boom' }), answer(500, { detail: 'boom' })]);
    const http = new ServiceHttp('https://api.example.com', KEY, { maxAttempts: 2, timeoutMs: 1000 }, script.seams);
    const error = await rejection(http.getJson('/v1/rows', {}, new AbortController().signal));
    expect(isFerryError(error, 'FERRY_SOURCE_UNREACHABLE')).toBe(true);
    expect(String((error as Error).message)).toMatch(/failed 2 time\(s\); last: 500 boom/);
  });

  it('classifies 401/403 as auth, 422 as configuration, and never shows the key', async () => {
    for (const [status, code] of [[401, 'FERRY_SOURCE_AUTH'], [403, 'FERRY_SOURCE_AUTH'], [422, 'FERRY_CONFIG_INVALID'], [404, 'FERRY_SOURCE_OBJECT_MISSING']] as const) {
      const script = scripted([answer(status, { detail: 'no' })]);
      const http = new ServiceHttp('https://api.example.com', KEY, { maxAttempts: 3, timeoutMs: 1000 }, script.seams);
      const error = await rejection(http.getJson('/v1/rows', {}, new AbortController().signal));
      expect(isFerryError(error, code)).toBe(true);
      expect(script.calls).toHaveLength(1);
      expect(JSON.stringify({ message: (error as Error).message, ...(error as { details?: object }).details })).not.toContain(KEY);
    }
  });
});

describe('service source: pagination against a scripted server', () => {
  let server: Server;
  let url = '';
  const seen: URLSearchParams[] = [];
  let pages: Record<string, { rows: unknown[]; pagination: { nextCursor: string | null; hasMore: boolean } }> = {};

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      seen.push(query);
      const page = pages[query.get('cursor') ?? ''];
      res.writeHead(page ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(page ?? { detail: 'no such page' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const row = (id: string, createdAt: string) => ({ rowId: id, name: id, createdAt, fields: { stage: { value: 'Won', fieldType: 'string', label: null } } });

  it('repeats filters and limit on every page and stops on hasMore=false even with a cursor', async () => {
    seen.length = 0;
    pages = {
      '': { rows: [row('a', '2024-01-03T00:00:00Z'), row('b', '2024-01-02T00:00:00Z')], pagination: { nextCursor: 'c1', hasMore: true } },
      c1: { rows: [row('c', '2024-01-01T00:00:00Z')], pagination: { nextCursor: 'c2', hasMore: false } },
    };
    const records = await readAll(service, { baseUrl: url, apiKey: KEY, resource: 'rows', pageSize: 2, filters: { objectTypeId: 'T', name: 'x' } }, { baseDir: '.' });
    expect(records.map((r) => r.origin)).toEqual([
      { stream: 'rows', url: `${url}/v1/rows/a`, key: 'a' },
      { stream: 'rows', url: `${url}/v1/rows/b`, key: 'b' },
      { stream: 'rows', url: `${url}/v1/rows/c`, key: 'c' },
    ]);
    expect(seen.map((q) => Object.fromEntries(q))).toEqual([
      { objectTypeId: 'T', name: 'x', limit: '2' },
      { objectTypeId: 'T', name: 'x', limit: '2', cursor: 'c1' },
    ]);
  });

  it('stops with an error when hasMore comes without a new cursor', async () => {
    pages = { '': { rows: [row('a', '2024-01-03T00:00:00Z')], pagination: { nextCursor: null, hasMore: true } } };
    const error = await rejection(readAll(service, { baseUrl: url, apiKey: KEY, resource: 'rows' }, { baseDir: '.' }));
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
  });

  it('pushes the incremental lower bound down as createdAfter (1 s early) and drops what is not newer', async () => {
    seen.length = 0;
    pages = { '': { rows: [row('c', '2024-01-03T00:00:00Z'), row('b', '2024-01-02T00:00:00Z'), row('a', '2024-01-02T00:00:00Z')], pagination: { nextCursor: null, hasMore: false } } };
    const incremental = { cursorField: 'createdAt', after: { value: '2024-01-02T00:00:00Z', key: 'a' } };
    const records = await readAll(service, { baseUrl: url, apiKey: KEY, resource: 'rows' }, { baseDir: '.', incremental });
    expect(records.map((r) => [r.origin.key, r.cursor])).toEqual([
      ['c', '2024-01-03T00:00:00Z'],
      ['b', '2024-01-02T00:00:00Z'],
    ]);
    // 1 s early, and 1 ms more so that a service with exclusive bounds lists the records at the bound too.
    expect(seen[0]?.get('createdAfter')).toBe('2024-01-01T23:59:58.999Z');
    seen.length = 0;
    await readAll(service, { baseUrl: url, apiKey: KEY, resource: 'rows', pushDown: false }, { baseDir: '.', incremental });
    expect(seen[0]?.has('createdAfter')).toBe(false);
  });

  it('discovers fields from one page, with row field values as typed paths', async () => {
    pages = { '': { rows: [row('a', '2024-01-03T00:00:00Z')], pagination: { nextCursor: 'more', hasMore: true } } };
    const [stream] = await service.discover(readContext(service, { baseUrl: url, apiKey: KEY, resource: 'rows' }, { baseDir: '.' }));
    const types = Object.fromEntries(stream!.fields.map((f) => [f.name, f.type]));
    expect(types).toMatchObject({ rowId: 'string', name: 'string', createdAt: 'datetime', updatedAt: 'datetime', fields: 'textarea', 'fields.stage.value': 'string' });
    expect(stream).toMatchObject({ name: 'rows', primaryKey: ['rowId'], cursorCandidates: ['createdAt', 'updatedAt'] });
  });
});

/** An emulator holding 11 public deal rows (and one private), plus a conversation. */
async function seededEmulator(): Promise<{ emulator: RunningEmulator; objectTypeId: string }> {
  const emulator = await startEmulator({ db: ':memory:' });
  const client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey });
  try {
    const source = await client.createSource({ name: 'crm', displayName: 'CRM' });
    const objectTypeId = (await client.createObjectType({ ...dealObjectType(), sourceId: source.id })).id;
    for (let i = 0; i < 11; i++) {
      const row = dealRow(i % 2);
      await client.createRow({ ...row, id: `deal-${i}`, sourceId: source.id, objectTypeId, createdAt: `2024-02-${String(i + 1).padStart(2, '0')}T10:00:00Z` });
    }
    // Not public: an API key cannot read it, so it must not appear.
    await client.createRow({ ...dealRow(0), id: 'private', public: false, ownerEmails: ['a@example.com'], sourceId: source.id, objectTypeId });
    await client.createConversation({ ...harperValleyConversation(), sourceId: source.id });
    return { emulator, objectTypeId };
  } finally {
    await client.close();
  }
}

describe('service source: details behind the pages', () => {
  it('fetches details several at once at concurrency > 1, and none for items older than the stored position', async () => {
    const items = Array.from({ length: 12 }, (_, i) => ({ conversationId: `c-${i}`, title: `Call ${i}`, startTime: new Date(Date.UTC(2024, 0, 1 + i)).toISOString() }));
    let inFlight = 0;
    let most = 0;
    const detailed: string[] = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const id = /^\/v1\/conversations\/(.+)$/.exec(path)?.[1];
      if (id === undefined) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ conversations: items, pagination: { nextCursor: null, hasMore: false } }));
        return;
      }
      detailed.push(id);
      inFlight += 1;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...items.find((item) => item.conversationId === id), transcript: [] }));
      }, 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const input = { baseUrl: url, apiKey: KEY, resource: 'conversations' as const, details: true, concurrency: 4, pushDown: false };
      const all = await readAll(service, input, { baseDir: '.' });
      expect(all.map((record) => record.origin.key).sort()).toEqual(items.map((item) => item.conversationId).sort());
      expect(all.every((record) => Array.isArray(record.data.transcript))).toBe(true);
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(4);
      detailed.length = 0;
      const incremental = { cursorField: 'startTime', after: { value: items[7]!.startTime, key: 'c-7' } };
      const newer = await readAll(service, input, { baseDir: '.', incremental });
      expect(newer.map((record) => record.origin.key).sort()).toEqual(['c-10', 'c-11', 'c-8', 'c-9']);
      expect(detailed.sort()).toEqual(['c-10', 'c-11', 'c-8', 'c-9']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('service source against the emulator', () => {
  let emulator: RunningEmulator;
  let objectTypeId = '';
  const options = () => ({ baseUrl: emulator.url, apiKey: emulator.devKey!, resource: 'rows' as const, filters: { objectTypeId }, pageSize: 4 });

  beforeAll(async () => {
    ({ emulator, objectTypeId } = await seededEmulator());
  });
  afterAll(() => emulator.close());

  it('fetches details when asked (the conversation transcript)', async () => {
    const input = { baseUrl: emulator.url, apiKey: emulator.devKey!, resource: 'conversations' as const };
    const [listed] = await readAll(service, input, { baseDir: '.' });
    expect(listed?.data.transcript).toBeUndefined();
    const [detailed] = await readAll(service, { ...input, details: true }, { baseDir: '.' });
    expect((detailed?.data.transcript as unknown[]).length).toBe(8);
    expect(detailed?.origin.url).toBe(`${emulator.url}/v1/conversations/${String(listed?.data.conversationId)}`);
  });

  it('check() passes with a read key and fails naming the scope without one', async () => {
    await expect(service.check!(readContext(service, options(), { baseDir: '.' }))).resolves.toBeUndefined();
    const bad = await rejection(service.check!(readContext(service, { ...options(), apiKey: 'sk_live_wrong' }, { baseDir: '.' })));
    expect(isFerryError(bad, 'FERRY_SOURCE_AUTH')).toBe(true);
  });

  it('stops at once when the signal aborts', async () => {
    const controller = new AbortController();
    const captured: Captured = { warnings: [] };
    let count = 0;
    const error = await rejection(
      (async () => {
        for await (const _ of service.read(readContext(service, options(), { baseDir: '.', signal: controller.signal, captured }))) {
          count++;
          controller.abort(new Error('stop'));
        }
      })(),
    );
    expect((error as Error).message).toBe('stop');
    expect(count).toBe(1);
  });
});

let conformance: { emulator: RunningEmulator; objectTypeId: string } | undefined;
await describeSourceConformance(service, {
  title: 'service conformance: rows of one object type, 4 per page',
  setup: async () => {
    conformance = await seededEmulator();
  },
  teardown: () => conformance?.emulator.close(),
  options: () => ({
    baseUrl: conformance!.emulator.url,
    apiKey: conformance!.emulator.devKey!,
    resource: 'rows' as const,
    filters: { objectTypeId: conformance!.objectTypeId },
    pageSize: 4,
  }),
  expectedCount: 11,
  primaryKey: ['rowId'],
  cursorField: 'createdAt',
});
