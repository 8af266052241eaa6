import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { ServiceClient } from '../../../src/api/client.js';
import type { ClientObserver, ServiceClientOptions } from '../../../src/api/client.js';
import { ServiceError } from '../../../src/api/service-error.js';
import { FerryError } from '../../../src/sdk/errors.js';
import { SOURCE_ID, dealRow, harperValleyConversation, rfcDocument } from '../../unit/api/fixtures.js';
import { json, startServer } from './test-server.js';
import type { Handler, TestServer } from './test-server.js';

const API_KEY = 'sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const TINY_RETRY = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 20 };

let server: TestServer | undefined;
let client: ServiceClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Handler, options: Partial<ServiceClientOptions> = {}) {
  server = await startServer(handler);
  client = new ServiceClient({ baseUrl: server.url, apiKey: API_KEY, retry: TINY_RETRY, ...options });
  return { server, client };
}

function recordingObserver() {
  const retries: Parameters<NonNullable<ClientObserver['onRetry']>>[0][] = [];
  const responses: Parameters<NonNullable<ClientObserver['onResponse']>>[0][] = [];
  const observer: ClientObserver = { onRetry: (e) => retries.push(e), onResponse: (e) => responses.push(e) };
  return { observer, retries, responses };
}

async function failure(promise: Promise<unknown>): Promise<FerryError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FerryError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

const conversationItem = (n: number) => ({
  conversationId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  sourceId: SOURCE_ID,
  title: `Harper Valley call ${n}`,
  startTime: '2020-05-30T18:12:54.809Z',
  endTime: '2020-05-30T18:13:30.240Z',
  type: 'EXTERNAL',
  participants: [{ name: 'John', email: null, attended: true }],
  crm: null,
});

const recordResponse = { status: 'created', recordId: '11111111-2222-4333-8444-555555555555', id: '010d38f5ada54e0d', sourceId: SOURCE_ID };

describe('pagination', () => {
  it('repeats filters and limit on every page, passes the cursor, and stops on hasMore false', async () => {
    const pages: Record<string, { items: number[]; next: string | null; hasMore: boolean }> = {
      '': { items: [1, 2], next: 'c1', hasMore: true },
      c1: { items: [3, 4], next: 'c2', hasMore: true },
      // nextCursor is not null here: the iterator must stop on hasMore alone.
      c2: { items: [5], next: 'c3-should-not-be-fetched', hasMore: false },
    };
    const { server, client } = await setup((req, res) => {
      const cursor = new URL(req.url, 'http://x').searchParams.get('cursor') ?? '';
      const page = pages[cursor];
      if (!page) return json(res, 400, { detail: 'bad cursor' });
      json(res, 200, { conversations: page.items.map(conversationItem), pagination: { nextCursor: page.next, hasMore: page.hasMore } });
    });

    const titles: string[] = [];
    for await (const c of client.iterateConversations({ type: 'EXTERNAL', title: 'harper valley', limit: 2, attendees: undefined })) {
      titles.push(c.title ?? '');
    }

    expect(titles).toEqual([1, 2, 3, 4, 5].map((n) => `Harper Valley call ${n}`));
    expect(server.seen).toHaveLength(3);
    const queries = server.seen.map((r) => new URL(r.url, 'http://x'));
    for (const q of queries) {
      expect(q.pathname).toBe('/v1/conversations');
      expect(q.searchParams.get('type')).toBe('EXTERNAL');
      expect(q.searchParams.get('title')).toBe('harper valley');
      expect(q.searchParams.get('limit')).toBe('2');
      expect(q.searchParams.has('attendees')).toBe(false);
    }
    expect(queries.map((q) => q.searchParams.get('cursor'))).toEqual([null, 'c1', 'c2']);
  });

  it('yields whole pages from the page iterator', async () => {
    const { client } = await setup((req, res) => {
      const second = req.url.includes('cursor=');
      json(res, 200, {
        rows: [],
        pagination: second ? { nextCursor: null, hasMore: false } : { nextCursor: 'next', hasMore: true },
      });
    });
    const seen = [];
    for await (const page of client.pages('listRows', { objectTypeId: '0b8e7c6d-5a4f-4e3d-9c2b-1a0f9e8d7c6b' })) seen.push(page.pagination);
    expect(seen).toEqual([{ nextCursor: 'next', hasMore: true }, { nextCursor: null, hasMore: false }]);
  });

  it('refuses a page that claims more results without a cursor instead of looping', async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, { deals: [], pagination: { nextCursor: null, hasMore: true } }));
    const err = await failure((async () => {
      for await (const _ of client.iterateDeals({ stage: 'Won' })) void _;
    })());
    expect(err.code).toBe('FERRY_SERVICE_ERROR');
    expect(server.seen).toHaveLength(1);
  });
});

describe('retries', () => {
  it('honours Retry-After in seconds on 429 (capped at maxDelayMs) and then succeeds', async () => {
    const { observer, retries, responses } = recordingObserver();
    const { server, client } = await setup(
      (_req, res, i) => (i === 0 ? json(res, 429, { detail: 'rate limited' }, { 'retry-after': '2' }) : json(res, 201, recordResponse)),
      { observer },
    );
    const result = await client.createConversation(harperValleyConversation());
    expect(result.status).toBe('created');
    expect(server.seen).toHaveLength(2);
    expect(retries).toEqual([{ endpoint: 'createConversation', status: 429, attempt: 1, delayMs: 20, retryAfterMs: 2000 }]);
    expect(responses.map((r) => [r.status, r.attempt])).toEqual([[429, 1], [201, 2]]);
  });

  it('honours Retry-After as an HTTP-date', async () => {
    const { observer, retries } = recordingObserver();
    const later = new Date(Date.now() + 120_000).toUTCString();
    const { server, client } = await setup(
      (_req, res, i) => (i === 0 ? json(res, 429, {}, { 'retry-after': later }) : json(res, 200, { status: 'ok', org_id: SOURCE_ID, scopes: ['read'] })),
      { observer },
    );
    await client.health();
    expect(server.seen).toHaveLength(2);
    expect(retries[0]?.retryAfterMs).toBeGreaterThan(100_000);
    expect(retries[0]?.delayMs).toBe(TINY_RETRY.maxDelayMs);
  });

  it('treats Retry-After 0 as no hint and backs off', async () => {
    const { observer, retries } = recordingObserver();
    const { client } = await setup(
      (_req, res, i) => (i === 0 ? json(res, 429, {}, { 'retry-after': '0' }) : json(res, 200, { status: 'ok', org_id: SOURCE_ID, scopes: [] })),
      { observer },
    );
    await client.health();
    expect(retries[0]).not.toHaveProperty('retryAfterMs');
  });

  it('retries a 503 and sends the same body with Content-Length again', async () => {
    const { server, client } = await setup((_req, res, i) => (i === 0 ? json(res, 503, { detail: 'unavailable' }) : json(res, 201, recordResponse)));
    await client.createRow(dealRow(1));
    expect(server.seen).toHaveLength(2);
    const [first, second] = server.seen;
    expect(second?.body).toBe(first?.body);
    for (const r of server.seen) {
      expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.body)));
      expect(r.headers['content-type']).toBe('application/json');
    }
    expect(JSON.parse(first?.body ?? '{}')).toMatchObject({ id: 'KWVA7VR1', fields: { close_value: { value: 0, fieldType: 'int' } } });
  });

  it('retries after the server drops the connection', async () => {
    const { observer, retries } = recordingObserver();
    const { server, client } = await setup(
      (req, res, i) => {
        if (i === 0) {
          res.socket?.destroy();
          return;
        }
        json(res, 201, recordResponse);
      },
      { observer },
    );
    await client.createConversation(harperValleyConversation());
    expect(server.seen).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.status).toBeUndefined();
    expect(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']).toContain(retries[0]?.errorCode);
  });

  it('gives up with FERRY_SERVICE_ERROR after maxAttempts of 5xx', async () => {
    const { server, client } = await setup((_req, res) => json(res, 500, { detail: 'boom' }));
    const err = await failure(client.getDeal('1C1I7A6R'));
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe('FERRY_SERVICE_ERROR');
    expect((err as ServiceError).permanent).toBe(false);
    expect(server.seen).toHaveLength(TINY_RETRY.maxAttempts);
    expect(err.message).toContain('boom');
  });

  it('makes a single attempt when the call passes retry: false', async () => {
    const { server, client } = await setup((_req, res) => json(res, 503, {}));
    const err = await failure(client.createRow(dealRow(), { retry: false }));
    expect(err.code).toBe('FERRY_SERVICE_ERROR');
    expect(server.seen).toHaveLength(1);
  });

  it('with retry: false, answers as the retrying path does on its last attempt: success, 429, dropped connection, abort, a body of the wrong shape', async () => {
    const { observer, retries, responses } = recordingObserver();
    const controller = new AbortController();
    const { server, client } = await setup(
      (_req, res, i) => {
        if (i === 0) return json(res, 201, recordResponse);
        if (i === 1) return json(res, 429, { detail: 'rate limited' }, { 'retry-after': '2' });
        if (i === 2) return void res.socket?.destroy();
        if (i === 3) return controller.abort();
        return json(res, 201, { status: 'created' });
      },
      { observer },
    );
    const once = { retry: false } as const;
    expect(await client.createRow(dealRow(), once)).toEqual(recordResponse);
    const throttled = await failure(client.createRow(dealRow(), once));
    expect(throttled).toBeInstanceOf(ServiceError);
    expect(throttled).toMatchObject({ code: 'FERRY_SERVICE_ERROR', retryAfterMs: 2000, details: { status: 429, attempts: 1 } });
    const dropped = await failure(client.createRow(dealRow(), once));
    expect(dropped.code).toBe('FERRY_SERVICE_UNREACHABLE');
    expect(dropped.details).toMatchObject({ endpoint: 'createRow', attempts: 1 });
    expect((await failure(client.createRow(dealRow(), { ...once, signal: controller.signal }))).code).toBe('FERRY_ABORTED');
    // Aborted before it goes: nothing is sent.
    expect((await failure(client.createRow(dealRow(), { ...once, signal: controller.signal }))).code).toBe('FERRY_ABORTED');
    const misshapen = await failure(client.createRow(dealRow(), once));
    expect(misshapen.message).toContain('does not match the expected shape');
    expect(server.seen).toHaveLength(5);
    expect(retries).toEqual([]);
    expect(responses.map((r) => [r.status, r.attempt])).toEqual([[201, 1], [429, 1], [201, 1]]);
  });

  it('reports FERRY_SERVICE_UNREACHABLE with a hint when nothing listens', async () => {
    const probe = await startServer(() => undefined);
    const url = probe.url;
    await probe.close();
    client = new ServiceClient({ baseUrl: url, apiKey: API_KEY, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    const err = await failure(client.health());
    expect(err.code).toBe('FERRY_SERVICE_UNREACHABLE');
    expect(err.details).toMatchObject({ endpoint: 'health', attempts: 2, errorCode: 'ECONNREFUSED' });
    expect(err.hint).toContain(url);
  });

  it('times out a silent server per attempt and retries', async () => {
    const { observer, retries } = recordingObserver();
    const { server, client } = await setup(() => undefined, { timeoutMs: 50, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 }, observer });
    const err = await failure(client.health());
    expect(err.code).toBe('FERRY_SERVICE_UNREACHABLE');
    expect(err.details).toMatchObject({ errorCode: 'ETIMEDOUT', attempts: 2 });
    expect(retries.map((r) => r.errorCode)).toEqual(['ETIMEDOUT']);
    expect(server.seen).toHaveLength(2);
  });

  it('stops waiting between attempts when the signal fires', async () => {
    const controller = new AbortController();
    const { server, client } = await setup(
      (_req, res) => {
        json(res, 429, {}, { 'retry-after': '60' });
        setTimeout(() => controller.abort(), 5);
      },
      { retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 60_000 } },
    );
    const err = await failure(client.health({ signal: controller.signal }));
    expect(err.code).toBe('FERRY_ABORTED');
    expect(server.seen).toHaveLength(1);
  });
});

describe('errors', () => {
  it('does not retry a 400 and surfaces the structured body', async () => {
    const body = {
      detail: {
        error: 'validation_error',
        message: 'sentence timestamp lies outside the conversation window',
        field: 'transcript.3.timestamp',
        request_id: 'req_01HZX3',
      },
    };
    const { server, client } = await setup((_req, res) => json(res, 400, body));
    const err = await failure(client.createConversation(harperValleyConversation()));
    expect(server.seen).toHaveLength(1);
    expect(err).toBeInstanceOf(ServiceError);
    const se = err as ServiceError;
    expect(se.code).toBe('FERRY_RECORD_REJECTED');
    expect(se.status).toBe(400);
    expect(se.serviceCode).toBe('validation_error');
    expect(se.field).toBe('transcript.3.timestamp');
    expect(se.requestId).toBe('req_01HZX3');
    expect(se.endpoint).toBe('createConversation');
    expect(se.body).toEqual(body);
    expect(se.permanent).toBe(true);
    expect(se.message).toContain('sentence timestamp lies outside the conversation window');
    expect(se.exitCode).toBe(2);
  });

  it('maps 401 to FERRY_SERVICE_AUTH without retrying', async () => {
    const { server, client } = await setup((_req, res) => json(res, 401, { detail: 'Invalid API key' }));
    const err = await failure(client.listSources());
    expect(err.code).toBe('FERRY_SERVICE_AUTH');
    expect((err as ServiceError).permanent).toBe(true);
    expect(server.seen).toHaveLength(1);
  });

  it('maps a 403 scope failure to FERRY_SERVICE_AUTH with the service message', async () => {
    const { client } = await setup((_req, res) => json(res, 403, { detail: 'API key missing required scope: read' }));
    const err = await failure(client.listDeals());
    expect(err.code).toBe('FERRY_SERVICE_AUTH');
    expect(err.message).toContain('API key missing required scope: read');
  });

  it('summarises a 422 validation list', async () => {
    const { client } = await setup((_req, res) =>
      json(res, 422, { detail: [{ loc: ['query', 'limit'], msg: 'Input should be less than or equal to 50', type: 'less_than_equal' }] }),
    );
    const err = (await failure(client.listMessages({ limit: 50 }))) as ServiceError;
    expect(err.code).toBe('FERRY_RECORD_REJECTED');
    expect(err.field).toBe('limit');
    expect(err.message).toContain('limit: Input should be less than or equal to 50');
  });

  it('rejects a success body that does not match the schema with FERRY_SERVICE_ERROR', async () => {
    const { client } = await setup((_req, res) => json(res, 200, { status: 'ok', org_id: 'not-a-uuid', scopes: 'read' }));
    const err = await failure(client.health());
    expect(err.code).toBe('FERRY_SERVICE_ERROR');
    expect(err.message).toMatch(/org_id: must be a UUID/);
    expect(err.message).toMatch(/scopes:/);
  });
});

describe('requests', () => {
  it('refuses a body over 10 MB before sending anything', async () => {
    const { server, client } = await setup((_req, res) => json(res, 201, recordResponse));
    const big = { ...rfcDocument(), content: Buffer.alloc(8 * 1024 * 1024, 0x41).toString('base64') };
    const err = await failure(client.createDocument(big));
    expect(err.code).toBe('FERRY_BODY_TOO_LARGE');
    expect(err.message).toContain('createDocument');
    expect(err.message).toMatch(/\d{8} bytes/);
    expect(server.seen).toHaveLength(0);
  });

  it('sends the JSON text a caller already made as it is, not the body serialised again', async () => {
    const { server, client } = await setup((_req, res) => json(res, 201, recordResponse));
    const row = dealRow(1);
    const text = JSON.stringify(Object.fromEntries(Object.entries(row).reverse()));
    await client.createRow(row, { json: text });
    const [req] = server.seen;
    expect(req?.body).toBe(text);
    expect(req?.body).not.toBe(JSON.stringify(row));
    expect(req?.headers['content-length']).toBe(String(Buffer.byteLength(text)));
  });

  it('refuses given JSON text over 10 MB before sending anything', async () => {
    const { server, client } = await setup((_req, res) => json(res, 201, recordResponse));
    const err = await failure(client.createDocument(rfcDocument(), { json: `"${'a'.repeat(10 * 1024 * 1024)}"` }));
    expect(err.code).toBe('FERRY_BODY_TOO_LARGE');
    expect(server.seen).toHaveLength(0);
  });

  it('sends auth, user agent and an exact Content-Length', async () => {
    const { server, client } = await setup((_req, res) => json(res, 201, recordResponse), { userAgent: 'ferry-test/1' });
    await client.createDocument(rfcDocument());
    const [req] = server.seen;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/v1/documents');
    expect(req?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req?.headers['user-agent']).toBe('ferry-test/1');
    expect(req?.headers['content-length']).toBe(String(Buffer.byteLength(req?.body ?? '')));
    expect(JSON.parse(req?.body ?? '{}')).toEqual(rfcDocument());
  });

  it('encodes path parameters and builds the record-key query', async () => {
    const deleted = { status: 'deleted', recordId: recordResponse.recordId, id: 'a b/c', sourceId: SOURCE_ID, deletedAt: '2024-01-01T00:00:00Z' };
    const { server, client } = await setup((req, res) => {
      if (req.url.startsWith('/v1/deals/')) {
        return json(res, 200, { dealId: 'x', contacts: [] });
      }
      json(res, 200, deleted);
    });
    await client.getDeal('GTX Pro/1C1I7A6R?x=1#y');
    await client.deleteRow({ remoteId: 'a b/c', sourceId: SOURCE_ID });
    expect(server.seen[0]?.url).toBe('/v1/deals/GTX%20Pro%2F1C1I7A6R%3Fx%3D1%23y');
    expect(server.seen[1]?.method).toBe('DELETE');
    expect(server.seen[1]?.url).toBe(`/v1/rows?remoteId=a+b%2Fc&sourceId=${SOURCE_ID}`);
  });

  it('accepts a base URL with a trailing slash and a path prefix', async () => {
    server = await startServer((_req, res) => json(res, 200, { sources: [] }));
    client = new ServiceClient({ baseUrl: `${server.url}/service/`, apiKey: API_KEY });
    await client.listSources({ name: 'crm' });
    expect(server.seen[0]?.url).toBe('/service/v1/sources?name=crm');
  });

  it('keeps at most `concurrency` connections open and reuses them', async () => {
    const sockets = new Set<unknown>();
    const { server, client } = await setup(
      (req, res) => {
        sockets.add(res.socket);
        setTimeout(() => json(res, 200, { status: 'ok', org_id: SOURCE_ID, scopes: [] }), 2);
      },
      { concurrency: 3 },
    );
    await Promise.all(Array.from({ length: 30 }, () => client.health()));
    expect(server.seen).toHaveLength(30);
    expect(sockets.size).toBeLessThanOrEqual(3);
    expect(sockets.size).toBeGreaterThan(0);
  });

  it('aborts a request in flight without retrying', async () => {
    const controller = new AbortController();
    const { server, client } = await setup(() => {
      controller.abort();
    });
    const err = await failure(client.getRow('5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d', { signal: controller.signal }));
    expect(err.code).toBe('FERRY_ABORTED');
    expect(server.seen).toHaveLength(1);
  });

  it('send() exposes status and headers; a body of the wrong shape is refused', async () => {
    const { client } = await setup((_req, res) => json(res, 201, recordResponse, { 'x-request-id': 'req_1' }));
    const answer = await client.send('createSource', { body: { name: 'crm', displayName: 'CRM' } }).catch((e: unknown) => e);
    // recordResponse is not a SourceResponse: the schema check must refuse it.
    expect(answer).toMatchObject({ code: 'FERRY_SERVICE_ERROR' });
    const ok = await client.send('createRow', { body: dealRow() });
    expect(ok.status).toBe(201);
    expect(ok.headers['x-request-id']).toBe('req_1');
  });

  it('works over an undici MockAgent passed as dispatcher', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://api.example.test')
      .intercept({ path: '/v1/health', method: 'GET', headers: { authorization: `Bearer ${API_KEY}` } })
      .reply(200, { status: 'ok', org_id: SOURCE_ID, scopes: ['read', 'ingest'] });
    const mocked = new ServiceClient({ baseUrl: 'https://api.example.test', apiKey: API_KEY, dispatcher: agent });
    await expect(mocked.health()).resolves.toMatchObject({ scopes: ['read', 'ingest'] });
    await agent.close();
  });
});

describe('ask', () => {
  const threadId = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
  const runId = '12345678-1234-4234-8234-123456789abc';
  const running = { threadId, runId, status: 'running' };
  const location = `/v1/ask-assistant/${threadId}/${runId}`;

  it('follows Location after Retry-After until the run completes', async () => {
    const polls: string[] = [];
    const { server, client } = await setup((req, res, i) => {
      if (i < 2) return json(res, 202, running, { location, 'retry-after': '5' });
      json(res, 200, { ...running, status: 'completed', output: 'James Miller asked for his savings balance.', generatedAt: 1590862412873 });
    });
    const run = await client.ask('what did james miller ask about?', { onPoll: (r) => polls.push(r.status) });
    expect(run.status).toBe('completed');
    expect(run.output).toContain('savings');
    expect(polls).toEqual(['running', 'running']);
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/ask-assistant',
      `GET ${location}`,
      `GET ${location}`,
    ]);
    expect(JSON.parse(server.seen[0]?.body ?? '{}')).toEqual({ message: 'what did james miller ask about?' });
  });

  it('returns a failed run as it is', async () => {
    const { client } = await setup((_req, res) => json(res, 200, { ...running, status: 'failed', error: 'no data' }));
    await expect(client.ask('why?')).resolves.toMatchObject({ status: 'failed', error: 'no data' });
  });

  it('gives up with FERRY_ASK_FAILED when the deadline passes', async () => {
    const { client } = await setup((_req, res) => json(res, 202, running, { location, 'retry-after': '5' }));
    const err = await failure(client.ask('still there?', { deadlineMs: 100 }));
    expect(err.code).toBe('FERRY_ASK_FAILED');
    expect(err.details).toMatchObject({ threadId, runId, deadlineMs: 100 });
  });

  it('stops polling when the caller aborts', async () => {
    const controller = new AbortController();
    const { client } = await setup((_req, res) => json(res, 202, running, { location, 'retry-after': '5' }));
    const pending = client.ask('still there?', { signal: controller.signal, onPoll: () => controller.abort() });
    const err = await failure(pending);
    expect(err.code).toBe('FERRY_ABORTED');
  });

  it('does not follow a Location on another origin', async () => {
    const { server, client } = await setup((_req, res, i) =>
      i === 0
        ? json(res, 202, running, { location: `http://evil.example${location}`, 'retry-after': '1' })
        : json(res, 200, { ...running, status: 'completed', output: 'ok', generatedAt: 1 }),
    );
    await client.ask('q');
    expect(server.seen[1]?.url).toBe(location);
  });
});

describe('API key redaction', () => {
  function leaks(text: string): boolean {
    return text.includes(API_KEY) || text.includes(API_KEY.slice(8));
  }

  it('keeps the key out of errors even when the server echoes it', async () => {
    const { client } = await setup((req, res) =>
      json(res, 400, {
        detail: { error: 'validation_error', message: `bad header ${req.headers.authorization}`, field: null, request_id: 'r1' },
      }),
    );
    const err = await failure(client.createMessage({
      id: 'm1',
      sourceId: SOURCE_ID,
      public: true,
      createdAt: 1590862374,
      body: `token ${API_KEY}`,
      sender: { email: 'phillip.allen@enron.com' },
      recipients: [{ email: 'tim.belden@enron.com' }],
    }));
    for (const text of [String(err), err.stack ?? '', JSON.stringify(err), inspect(err, { depth: 10 }), JSON.stringify(err.details)]) {
      expect(leaks(text)).toBe(false);
    }
    expect(err.message).toContain('***');
  });

  it('keeps the key out of network errors and of the client itself', async () => {
    const probe = await startServer(() => undefined);
    await probe.close();
    client = new ServiceClient({ baseUrl: probe.url, apiKey: API_KEY, retry: { maxAttempts: 1 } });
    const err = await failure(client.health());
    for (const text of [String(err), err.stack ?? '', JSON.stringify(err), inspect(err, { depth: 10 })]) {
      expect(leaks(text)).toBe(false);
    }
    for (const text of [inspect(client, { depth: 10, showHidden: true }), JSON.stringify(client), String(client)]) {
      expect(leaks(text)).toBe(false);
    }
  });
});
