/**
 * The http source against a hostile API: 127.0.0.1 poses as the configured
 * API, 127.0.0.2 as another host (Linux routes all of 127.0.0.0/8 to lo).
 * Redirects, next links and Link headers that lead to the other host must
 * never carry the credentials there; answers too large to hold, and
 * endless pages, must end in a clear error instead of eating memory.
 */
import { createGzip } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import http from '../../../connectors/sources/http/index.js';
import { isFerryError, type FerryError } from '../../../src/sdk/index.js';
import { items, readAll, rejection, startApi, type SeenRequest, type TestApi } from './http-fixture.js';

const TOKEN = 'tok_live_hostile_secret_0123';
const KEY = 'key_live_hostile_secret_4567';

let apis: TestApi[] = [];
afterEach(async () => {
  await Promise.all(apis.map((api) => api.close()));
  apis = [];
});

async function api(handler: Parameters<typeof startApi>[0], options: Parameters<typeof startApi>[1] = {}): Promise<TestApi> {
  const started = await startApi(handler, options);
  apis.push(started);
  return started;
}

/** Everything a request showed the other host: headers and query string. */
function exposed(requests: SeenRequest[]): string {
  return JSON.stringify(requests.map((r) => ({ headers: r.headers, query: r.url.search })));
}

const AUTHS = {
  bearer: { type: 'bearer', token: TOKEN },
  'api key in a header': { type: 'apiKey', in: 'header', name: 'X-Api-Key', value: KEY },
  'api key in the query': { type: 'apiKey', in: 'query', name: 'api_key', value: KEY },
  basic: { type: 'basic', username: 'me', password: TOKEN },
} as const;

describe('http source: credentials stay on their origin', () => {
  it.each(Object.entries(AUTHS))('refuses a redirect to another host with %s auth, naming the URL and allowedOrigins', async (_name, auth) => {
    const other = await api(() => ({ json: items(2) }), { host: '127.0.0.2' });
    const home = await api(() => ({ status: 302, headers: { location: `${other.url}/stolen?x=1` } }));
    const error = (await rejection(readAll(http, { baseUrl: home.url, path: '/items', auth }))) as FerryError;
    expect(isFerryError(error, 'FERRY_ORIGIN_REFUSED')).toBe(true);
    expect(error.message).toContain(`${other.url}/stolen`);
    expect(error.message).toMatch(/redirect/);
    expect(error.hint).toMatch(/allowedOrigins/);
    expect(other.requests).toHaveLength(0);
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(KEY);
  });

  it('refuses a next link and a Link header to another host: the other host sees nothing', async () => {
    const other = await api(() => ({ json: { items: items(2, 50), next: null } }), { host: '127.0.0.2' });
    const home = await api(({ url }) =>
      url.pathname === '/body'
        ? { json: { items: items(2), next: `${other.url}/page2?api_key=${KEY}` } }
        : { json: items(2), headers: { link: `<${other.url}/page2>; rel="next"` } },
    );
    for (const [path, pagination] of [
      ['/body', { type: 'nextLink', path: '$.next' }],
      ['/header', { type: 'linkHeader' }],
    ] as const) {
      const error = (await rejection(
        readAll(http, { baseUrl: home.url, path, auth: AUTHS['api key in a header'], recordSelector: path === '/body' ? '$.items' : '$', pagination }),
      )) as FerryError;
      expect(isFerryError(error, 'FERRY_ORIGIN_REFUSED')).toBe(true);
      expect(error.message).toMatch(path === '/body' ? /next link/ : /Link header/);
      expect(error.message).not.toContain(KEY);
      expect(error.where).toMatch(/stream/);
    }
    expect(other.requests).toHaveLength(0);
  });

  it('follows an allowed origin without any credential (header, query key, custom header), and a trusted one with them', async () => {
    const other = await api(() => ({ json: { items: items(2, 50), next: null } }), { host: '127.0.0.2' });
    // As many APIs do, the next link repeats the request's query, the key in it included.
    const home = await api(({ url }) => ({ json: { items: items(2), next: `${other.url}/page2?${url.search.slice(1)}${url.search ? '&' : ''}page=2` } }));
    const base = { baseUrl: home.url, path: '/items', recordSelector: '$.items', pagination: { type: 'nextLink', path: '$.next' }, headers: { 'X-Tenant-Secret': TOKEN } } as const;
    for (const auth of Object.values(AUTHS)) {
      const records = await readAll(http, { ...base, auth, allowedOrigins: [other.url] });
      expect(records.map((r) => r.data.id)).toEqual([1, 2, 50, 51]);
    }
    expect(other.requests).toHaveLength(4);
    expect(exposed(other.requests)).not.toContain(KEY);
    expect(exposed(other.requests)).not.toContain(TOKEN);
    expect(other.requests.every((r) => r.headers.authorization === undefined && r.url.searchParams.get('page') === '2')).toBe(true);
    // Home got them every time.
    expect(home.requests.filter((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toHaveLength(1);

    await readAll(http, { ...base, auth: AUTHS.bearer, trustedOrigins: [other.url] });
    expect(other.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('refuses a step from https down to http and a child stream URL on another host', async () => {
    const other = await api(() => ({ json: items(1) }), { host: '127.0.0.2' });
    const home = await api(() => ({ json: items(2) }));
    const error = (await rejection(
      readAll(http, {
        baseUrl: home.url,
        auth: AUTHS.bearer,
        stream: 'children',
        streams: [
          { name: 'parents', path: '/parents', primaryKey: 'id' },
          { name: 'children', path: `${other.url}/children/{pid}`, primaryKey: 'id', parent: { stream: 'parents', key: 'id', as: 'pid' } },
        ],
      }),
    )) as FerryError;
    expect(isFerryError(error, 'FERRY_ORIGIN_REFUSED')).toBe(true);
    expect(error.message).toContain(`${other.url}/children/1`);
    expect(other.requests).toHaveLength(0);
  });
});

describe('http source: caps on what an answer may be', () => {
  it('cancels a gzip bomb at the cap (decompressed) with FERRY_SOURCE_RESPONSE_TOO_LARGE, not as unreachable', async () => {
    let sent = 0;
    const home = await api(() => ({}), {
      raw: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        const gzip = createGzip();
        gzip.pipe(res);
        const zeros = Buffer.alloc(1 << 20, 0x20);
        // Endless whitespace, compressed about a thousandfold; stops when ferry hangs up.
        const pump = (): void => {
          while (!res.destroyed && sent < 2048 && gzip.write(zeros)) sent++;
          if (!res.destroyed && sent < 2048) gzip.once('drain', pump);
        };
        res.on('close', () => gzip.destroy());
        pump();
        return true;
      },
    });
    const error = (await rejection(readAll(http, { baseUrl: home.url, path: '/bomb', maxResponseBytes: 4 * 1024 * 1024 }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_RESPONSE_TOO_LARGE')).toBe(true);
    expect(error.message).toMatch(/past the cap of 4194304 bytes/);
    expect(error.hint).toMatch(/maxResponseBytes/);
    // Far less than the 2 GiB the server would have sent: ferry stopped reading at the cap.
    expect(sent).toBeLessThan(256);
    expect(home.requests).toHaveLength(1);
  });

  it('refuses a Content-Length above the cap before reading the body', async () => {
    let written = 0;
    const home = await api(() => ({}), {
      raw: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2147483648' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const timer = setInterval(() => {
          if (res.destroyed || written > 4096) return clearInterval(timer);
          res.write(chunk);
          written++;
        }, 5);
        res.on('close', () => clearInterval(timer));
        return true;
      },
    });
    const error = (await rejection(readAll(http, { baseUrl: home.url, path: '/huge' }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_RESPONSE_TOO_LARGE')).toBe(true);
    expect(error.message).toMatch(/announced 2147483648 bytes, over the cap of 67108864; it was not read/);
    expect(home.requests).toHaveLength(1);
  });

  it('stops endless pages at maxPages, and still detects a loop', async () => {
    const home = await api(({ url }) => {
      const page = Number(url.searchParams.get('cursor') ?? 0);
      return url.pathname === '/loop' ? { json: { items: items(1), next: 'same' } } : { json: { items: items(1, page + 1), next: String(page + 1) } };
    });
    const endless = { baseUrl: home.url, path: '/endless', recordSelector: '$.items', pagination: { type: 'cursor', cursorPath: '$.next', param: 'cursor' }, maxPages: 5 } as const;
    const error = (await rejection(readAll(http, endless))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_RESPONSE_TOO_LARGE')).toBe(true);
    expect(error.message).toMatch(/more than maxPages \(5\)/);
    expect(home.to('/endless')).toHaveLength(5);

    const looping = (await rejection(readAll(http, { ...endless, path: '/loop', maxPages: undefined }))) as FerryError;
    expect(isFerryError(looping, 'FERRY_SOURCE_READ_FAILED')).toBe(true);
    expect(looping.message).toMatch(/pagination loops/);
    expect(home.to('/loop')).toHaveLength(2);
  });
});
