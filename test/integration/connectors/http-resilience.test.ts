import { afterEach, describe, expect, it } from 'vitest';
import { createHttpSource } from '../../../connectors/sources/http/index.js';
import { isFerryError, type FerryError } from '../../../src/sdk/index.js';
import { items, readAll, rejection, silent, startApi, VirtualClock, type TestApi } from './http-fixture.js';

let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const ALL = items(12);
const paged = { pagination: { type: 'page' as const, size: 2, sizeParam: 'size' } };
function pagedApi(): Promise<TestApi> {
  return startApi(({ url }) => {
    const page = Number(url.searchParams.get('page'));
    return { json: ALL.slice((page - 1) * 2, page * 2) };
  });
}

describe('http source rate limit', () => {
  it('holds the rate to maxRequestsPerSecond, its upper bound', async () => {
    api = await pagedApi();
    const clock = new VirtualClock();
    const sentAt: number[] = [];
    const source = createHttpSource({
      clock,
      pacingClock: clock,
      fetch: (input, init) => {
        sentAt.push(clock.now());
        return fetch(input, init);
      },
    });
    const records = await readAll(source, { baseUrl: api.url, path: '/items', maxRequestsPerSecond: 2, ...paged });
    expect(records).toHaveLength(12);
    expect(api.requests).toHaveLength(7); // 6 full pages and an empty one
    const start = sentAt[0]!;
    expect(sentAt.map((t) => t - start)).toEqual([0, 500, 1000, 1500, 2000, 2500, 3000]);
    // The bound: any span of T ms holds at most one request + rate × T.
    for (let i = 0; i < sentAt.length; i++) {
      for (let j = i + 1; j < sentAt.length; j++) expect(j - i + 1).toBeLessThanOrEqual(1 + (2 * (sentAt[j]! - sentAt[i]!)) / 1000);
    }
  });

  it('does not wait at all without maxRequestsPerSecond', async () => {
    api = await pagedApi();
    const clock = new VirtualClock();
    await readAll(createHttpSource({ clock }), { baseUrl: api.url, path: '/items', ...paged });
    expect(clock.sleeps).toEqual([]);
  });
});

describe('http source retries', () => {
  it('waits as long as Retry-After (seconds) says on 429, then succeeds', async () => {
    let calls = 0;
    api = await startApi(() => (++calls === 1 ? { status: 429, headers: { 'retry-after': '7' }, json: { error: 'slow down' } } : { json: ALL }));
    const clock = new VirtualClock();
    const records = await readAll(createHttpSource({ clock }), { baseUrl: api.url, path: '/items' });
    expect(records).toHaveLength(12);
    expect(clock.sleeps).toEqual([7000]);
    expect(api.requests).toHaveLength(2);
  });

  it('logs one warning per retry, with the URL as shown everywhere (the query key masked)', async () => {
    let calls = 0;
    api = await startApi(() => (++calls <= 2 ? { status: calls === 1 ? 503 : 429 } : { json: ALL }));
    const warnings: { fields: Record<string, unknown>; message: string }[] = [];
    const logger = { ...silent, warn: (fields: Record<string, unknown>, message: string) => void warnings.push({ fields, message }) };
    const options = { baseUrl: api.url, path: '/items', auth: { type: 'apiKey' as const, in: 'query' as const, name: 'hapikey', value: 'key-abcdef' } };
    await readAll(createHttpSource({ clock: new VirtualClock() }), options, { logger });
    expect(warnings.map((w) => [w.message, w.fields.status, w.fields.attempt])).toEqual([
      ['source API answered a transient error; retrying', 503, 1],
      ['source API answered a transient error; retrying', 429, 2],
    ]);
    expect(JSON.stringify(warnings)).not.toContain('key-abcdef');
    expect(String(warnings[0]!.fields.url)).toContain('/items');
  });

  it('honours Retry-After as an HTTP date', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    api = await startApi(() =>
      ++calls === 1 ? { status: 503, headers: { 'retry-after': new Date(clock.now() + 3000).toUTCString() } } : { json: ALL },
    );
    await readAll(createHttpSource({ clock }), { baseUrl: api.url, path: '/items' });
    expect(clock.sleeps).toEqual([3000]);
  });

  it('caps a Retry-After above retry.maxDelayMs', async () => {
    let calls = 0;
    api = await startApi(() => (++calls === 1 ? { status: 429, headers: { 'retry-after': '3600' } } : { json: ALL }));
    const clock = new VirtualClock();
    await readAll(createHttpSource({ clock }), { baseUrl: api.url, path: '/items', retry: { maxDelayMs: 10_000 } });
    expect(clock.sleeps).toEqual([10_000]);
  });

  it('retries 5xx with exponential backoff and full jitter', async () => {
    let calls = 0;
    api = await startApi(() => (++calls <= 3 ? { status: calls === 2 ? 502 : 500, text: 'oops' } : { json: ALL }));
    const clock = new VirtualClock();
    const records = await readAll(createHttpSource({ clock, random: () => 0.5 }), {
      baseUrl: api.url,
      path: '/items',
      retry: { maxAttempts: 5, baseDelayMs: 400 },
    });
    expect(records).toHaveLength(12);
    // Half of each window: 400, 800, 1600 ms.
    expect(clock.sleeps).toEqual([200, 400, 800]);
  });

  it('stops after retry.maxAttempts and names the URL and what the API said', async () => {
    api = await startApi(() => ({ status: 503, json: { error: 'maintenance' } }));
    const clock = new VirtualClock();
    const error = (await rejection(readAll(createHttpSource({ clock }), { baseUrl: api.url, path: '/items', retry: { maxAttempts: 3 } }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect(error.message).toBe(`GET ${api.url}/items answered 503: {"error":"maintenance"}`);
    expect(api.requests).toHaveLength(3);
    expect(clock.sleeps).toHaveLength(2);
  });

  it('fails at once on a 404, with the URL redacted and a snippet of the body', async () => {
    api = await startApi(() => ({ status: 404, json: { message: 'no such board', hint: 'x'.repeat(1000) } }));
    const clock = new VirtualClock();
    const error = (await rejection(
      readAll(createHttpSource({ clock }), {
        baseUrl: api.url,
        path: '/boards/9',
        params: { access_token: 'tok-in-query', fields: 'all' },
      }),
    )) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect(error.message).toContain(`GET ${api.url}/boards/9?access_token=***&fields=all answered 404: {"message":"no such board"`);
    expect(error.message.length).toBeLessThan(450);
    expect(error.message).not.toContain('tok-in-query');
    expect(error.details).toMatchObject({ status: 404, url: `${api.url}/boards/9?access_token=***&fields=all` });
    expect(api.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('reports an unreachable API as FERRY_SOURCE_UNREACHABLE after retrying', async () => {
    const closed = await startApi(() => ({ json: [] }));
    await closed.close();
    const clock = new VirtualClock();
    const error = (await rejection(readAll(createHttpSource({ clock }), { baseUrl: closed.url, path: '/items', retry: { maxAttempts: 3 } }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_UNREACHABLE')).toBe(true);
    expect(error.message).toMatch(/after 3 attempts \(ECONNREFUSED\)/);
    expect(clock.sleeps).toHaveLength(2);
  });

  it('retries a dropped connection', async () => {
    let calls = 0;
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      if (++calls === 1) {
        req.socket.destroy();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(ALL));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const clock = new VirtualClock();
      expect(await readAll(createHttpSource({ clock }), { baseUrl: `http://127.0.0.1:${port}`, path: '/x' })).toHaveLength(12);
      expect(calls).toBe(2);
      expect(clock.sleeps).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('turns a body that is not JSON into FERRY_SOURCE_READ_FAILED', async () => {
    api = await startApi(() => ({ text: '<html>login</html>' }));
    const error = (await rejection(readAll(createHttpSource(), { baseUrl: api.url, path: '/items' }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect(error.message).toMatch(/not JSON: <html>login<\/html>/);
  });

  it('stops waiting for a slow API after timeoutMs and says so', async () => {
    api = await startApi(() => new Promise(() => undefined));
    const error = (await rejection(readAll(createHttpSource({ clock: new VirtualClock() }), { baseUrl: api.url, path: '/slow', timeoutMs: 50, retry: { maxAttempts: 2 } }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_UNREACHABLE')).toBe(true);
    expect(error.message).toMatch(/ETIMEDOUT/);
    expect(error.hint).toMatch(/timeoutMs \(50 ms\)/);
    expect(api.requests).toHaveLength(2);
  });

  it('aborts a request in flight when the signal fires', async () => {
    api = await startApi(() => new Promise(() => undefined));
    const controller = new AbortController();
    const read = readAll(createHttpSource(), { baseUrl: api.url, path: '/slow' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect(isFerryError(await rejection(read), 'FERRY_ABORTED')).toBe(true);
  });
});
