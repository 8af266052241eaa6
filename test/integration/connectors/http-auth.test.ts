import { afterEach, describe, expect, it } from 'vitest';
import http, { createHttpSource } from '../../../connectors/sources/http/index.js';
import { isFerryError, type FerryError } from '../../../src/sdk/index.js';
import { context, items, readAll, rejection, startApi, VirtualClock, type TestApi } from './http-fixture.js';

let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** An API that answers only requests passing `allowed`, 401 otherwise. */
function guarded(allowed: (request: { headers: Record<string, string | string[] | undefined>; url: URL }) => boolean) {
  return startApi((request) => (allowed(request) ? { json: items(3) } : { status: 401, json: { error: 'unauthorized' } }));
}

describe('http source auth', () => {
  it('bearer token', async () => {
    api = await guarded(({ headers }) => headers.authorization === 'Bearer tok-123456');
    expect(await readAll(http, { baseUrl: api.url, path: '/x', auth: { type: 'bearer', token: 'tok-123456' } })).toHaveLength(3);
  });

  it('basic', async () => {
    api = await guarded(({ headers }) => headers.authorization === `Basic ${Buffer.from('ann:pa:ss').toString('base64')}`);
    expect(await readAll(http, { baseUrl: api.url, path: '/x', auth: { type: 'basic', username: 'ann', password: 'pa:ss' } })).toHaveLength(3);
  });

  it('API key in a header', async () => {
    api = await guarded(({ headers }) => headers['x-api-key'] === 'key-abcdef');
    expect(await readAll(http, { baseUrl: api.url, path: '/x', auth: { type: 'apiKey', in: 'header', name: 'X-Api-Key', value: 'key-abcdef' } })).toHaveLength(3);
  });

  it('API key in the query, redacted from origins', async () => {
    api = await guarded(({ url }) => url.searchParams.get('hapikey') === 'key-abcdef');
    const records = await readAll(http, { baseUrl: api.url, path: '/x', auth: { type: 'apiKey', in: 'query', name: 'hapikey', value: 'key-abcdef' } });
    expect(records).toHaveLength(3);
    expect(records[0]!.origin.url).toBe(`${api.url}/x?hapikey=***`);
    expect(JSON.stringify(records.map((r) => r.origin))).not.toContain('key-abcdef');
  });

  it('a refused static credential is FERRY_SOURCE_AUTH after one request, without the secret in the message', async () => {
    api = await guarded(() => false);
    const error = (await rejection(readAll(http, { baseUrl: api.url, path: '/x', auth: { type: 'bearer', token: 'tok-123456' } }))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_AUTH')).toBe(true);
    expect(error.message).toContain('(401)');
    expect(JSON.stringify({ m: error.message, d: error.details })).not.toContain('tok-123456');
    expect(api.requests).toHaveLength(1);
  });
});

describe('http source OAuth2 client credentials', () => {
  /** A token endpoint and an API in one server; `valid` holds the tokens the API accepts. */
  async function oauthApi(options: { expiresIn?: number; tokenStatus?: number } = {}) {
    const valid = new Set<string>();
    let issued = 0;
    const server = await startApi(({ url, body, headers }) => {
      if (url.pathname === '/oauth/token') {
        const form = new URLSearchParams(body);
        const basic = headers.authorization === `Basic ${Buffer.from('client-1:s3cret-value').toString('base64')}`;
        const posted = form.get('client_id') === 'client-1' && form.get('client_secret') === 's3cret-value';
        if (options.tokenStatus || form.get('grant_type') !== 'client_credentials' || !(basic || posted)) {
          return { status: options.tokenStatus ?? 401, json: { error: 'invalid_client', echo: body } };
        }
        const token = `access-${++issued}`;
        valid.add(token);
        return { json: { access_token: token, token_type: 'Bearer', ...(options.expiresIn !== undefined ? { expires_in: options.expiresIn } : {}) } };
      }
      const token = String(headers.authorization ?? '').replace(/^Bearer /, '');
      return valid.has(token) ? { json: items(2) } : { status: 401, json: { error: 'expired' } };
    });
    return { server, valid };
  }

  const oauth = (url: string, extra: Record<string, unknown> = {}) => ({
    baseUrl: url,
    path: '/data',
    auth: { type: 'oauth2' as const, tokenUrl: `${url}/oauth/token`, clientId: 'client-1', clientSecret: 's3cret-value', scope: 'read', audience: 'api', ...extra },
  });

  it('fetches a token with the form grant and caches it across reads', async () => {
    const { server } = await oauthApi({ expiresIn: 3600 });
    api = server;
    const source = createHttpSource({ clock: new VirtualClock() });
    const options = source.options.parse(oauth(api.url));
    expect(await readAll(source, options, { parsed: true })).toHaveLength(2);
    expect(await readAll(source, options, { parsed: true })).toHaveLength(2);
    const tokenRequests = api.to('/oauth/token');
    expect(tokenRequests).toHaveLength(1);
    const form = new URLSearchParams(tokenRequests[0]!.body);
    expect(Object.fromEntries(form)).toEqual({ grant_type: 'client_credentials', client_id: 'client-1', client_secret: 's3cret-value', scope: 'read', audience: 'api' });
    expect(tokenRequests[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(api.to('/data').map((r) => r.headers.authorization)).toEqual(['Bearer access-1', 'Bearer access-1']);
  });

  it('sends client credentials with HTTP Basic when asked', async () => {
    const { server } = await oauthApi();
    api = server;
    expect(await readAll(http, oauth(api.url, { clientAuth: 'basic' }))).toHaveLength(2);
    expect(new URLSearchParams(api.to('/oauth/token')[0]!.body).get('client_secret')).toBeNull();
  });

  it('renews the token shortly before expires_in runs out', async () => {
    const { server } = await oauthApi({ expiresIn: 600 });
    api = server;
    const clock = new VirtualClock();
    const source = createHttpSource({ clock });
    const options = source.options.parse(oauth(api.url, { expiryMarginSeconds: 60 }));
    await readAll(source, options, { parsed: true });
    clock.time += 539_000; // 9 s before the margin: still cached
    await readAll(source, options, { parsed: true });
    expect(api.to('/oauth/token')).toHaveLength(1);
    clock.time += 2_000; // inside the 60 s margin
    await readAll(source, options, { parsed: true });
    expect(api.to('/oauth/token')).toHaveLength(2);
    expect(api.to('/data').map((r) => r.headers.authorization)).toEqual(['Bearer access-1', 'Bearer access-1', 'Bearer access-2']);
  });

  it('fetches a new token once when the API answers 401, then retries the request', async () => {
    const { server, valid } = await oauthApi({ expiresIn: 3600 });
    api = server;
    const source = createHttpSource({ clock: new VirtualClock() });
    const options = source.options.parse(oauth(api.url));
    await readAll(source, options, { parsed: true });
    valid.clear(); // the server revoked every token before its expiry
    expect(await readAll(source, options, { parsed: true })).toHaveLength(2);
    expect(api.to('/oauth/token')).toHaveLength(2);
    expect(api.to('/data').map((r) => r.headers.authorization)).toEqual(['Bearer access-1', 'Bearer access-1', 'Bearer access-2']);
  });

  it('gives up with FERRY_SOURCE_AUTH when a fresh token is refused too', async () => {
    api = await startApi(({ url }) => (url.pathname === '/oauth/token' ? { json: { access_token: 'never-good' } } : { status: 403, json: { error: 'forbidden' } }));
    const error = (await rejection(readAll(http, oauth(api.url)))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_AUTH')).toBe(true);
    expect(error.message).toContain('(403)');
    expect(api.to('/oauth/token')).toHaveLength(2);
    expect(api.to('/data')).toHaveLength(2);
  });

  it('reports a refused client as FERRY_SOURCE_AUTH without the secret, even when the endpoint echoes it', async () => {
    const { server } = await oauthApi({ tokenStatus: 401 });
    api = server;
    const error = (await rejection(readAll(http, oauth(api.url)))) as FerryError;
    expect(isFerryError(error, 'FERRY_SOURCE_AUTH')).toBe(true);
    expect(error.message).toMatch(/token endpoint .* answered 401/);
    expect(error.message).toContain('invalid_client');
    expect(error.message).not.toContain('s3cret-value');
  });

  it('check() passes with a valid client and fails with a wrong secret', async () => {
    const { server } = await oauthApi();
    api = server;
    await expect(http.check!(context(http, oauth(api.url)))).resolves.toBeUndefined();
    const wrong = oauth(api.url, { clientSecret: 'wrong-secret' });
    expect(isFerryError(await rejection(http.check!(context(http, wrong))), 'FERRY_SOURCE_AUTH')).toBe(true);
  });
});
