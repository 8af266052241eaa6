import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { randomUUID } from 'node:crypto';
import { apiFor, createSource, startApi, type Api } from './helpers.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';

const ORG = randomUUID();

describe('emulator: health, auth and error shapes', () => {
  let api: Api;
  let keyed: RunningEmulator;
  beforeAll(async () => {
    api = await startApi();
    keyed = await startEmulator({
      keys: {
        sk_live_read: { orgId: ORG, scopes: ['read'] },
        sk_live_ingest: { orgId: ORG, scopes: ['ingest'] },
        sk_live_ask: { orgId: ORG, scopes: ['ask_assistant'] },
        sk_live_revoked: { orgId: ORG, scopes: ['read', 'ingest', 'ask_assistant'], revoked: true },
      },
    });
  });
  afterAll(async () => {
    await api.emulator.close();
    await keyed.close();
  });

  it('answers /v1/health with org and scopes, and /healthcheck without a key', async () => {
    const health = await api.get('/v1/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', org_id: api.emulator.orgId, scopes: ['read', 'ingest', 'ask_assistant'] });
    const check = await api.get('/healthcheck', null);
    expect(check.status).toBe(200);
    expect(check.body).toEqual({ status: 'ok' });
  });

  it('carries a request id on every response and echoes a given one', async () => {
    const res = await api.get('/v1/health');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const echoed = await api.call('GET', '/v1/health', undefined, { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
  });

  it('refuses a missing header with 403, unknown and revoked keys with 401', async () => {
    expect((await api.get('/v1/sources', null)).status).toBe(403);
    expect((await api.post('/v1/sources', { name: 'x', displayName: 'x' }, null)).status).toBe(403);
    expect((await api.get('/v1/health', 'sk_live_nope')).status).toBe(401);
    const k = apiFor(keyed, 'sk_live_revoked');
    expect((await k.get('/v1/health')).status).toBe(401);
    expect((await k.get('/v1/sources')).status).toBe(401);
  });

  it('refuses a key lacking the scope with the exact body, for each scope', async () => {
    const reader = apiFor(keyed, 'sk_live_read');
    const ingester = apiFor(keyed, 'sk_live_ingest');
    const asker = apiFor(keyed, 'sk_live_ask');
    const noIngest = await reader.post('/v1/sources', { name: 'a', displayName: 'a' });
    expect(noIngest.status).toBe(403);
    expect(noIngest.body).toEqual({ detail: 'API key missing required scope: ingest' });
    const noRead = await ingester.get('/v1/conversations');
    expect(noRead.status).toBe(403);
    expect(noRead.body).toEqual({ detail: 'API key missing required scope: read' });
    const noAsk = await reader.post('/v1/ask-assistant', { message: 'hi' });
    expect(noAsk.status).toBe(403);
    expect(noAsk.body).toEqual({ detail: 'API key missing required scope: ask_assistant' });
    expect((await asker.get('/v1/rows')).body).toEqual({ detail: 'API key missing required scope: read' });
    // Any valid key may call health.
    expect((await asker.get('/v1/health')).body.scopes).toEqual(['ask_assistant']);
  });

  it('answers malformed JSON with a structured 400', async () => {
    const res = await api.call('POST', '/v1/sources', '{"name": ');
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({ error: 'validation_error', field: null });
    expect(typeof res.body.detail.request_id).toBe('string');
    expect(res.body.detail.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers a chunked POST (no Content-Length) with 411 length_required', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${api.emulator.url}/v1/sources`,
        { method: 'POST', headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write('{"name":"chunked",');
      req.end('"displayName":"x"}');
    });
    expect(status).toBe(411);
    expect(JSON.parse(body).detail.error).toBe('length_required');
  });

  it('answers a body over 10 MB with 413 payload_too_large', async () => {
    const big = JSON.stringify({ name: 'x', displayName: 'y'.repeat(10 * 1024 * 1024 + 10) });
    const res = await request(`${api.emulator.url}/v1/sources`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
      body: big,
    });
    expect(res.statusCode).toBe(413);
    expect(((await res.body.json()) as { detail: { error: string } }).detail.error).toBe('payload_too_large');
  });

  it('answers unknown paths and methods with 404/405 and malformed ids with 404', async () => {
    expect((await api.get('/v1/nope')).status).toBe(404);
    expect((await api.call('PUT', '/v1/sources')).status).toBe(405);
    const bad = await api.get('/v1/conversations/not-a-uuid');
    expect(bad.status).toBe(404);
    expect(typeof bad.body.detail).toBe('string');
    const badDelete = await api.del('/v1/sources/not-a-uuid');
    expect(badDelete.status).toBe(404);
    expect(badDelete.body.detail.error).toBe('not_found');
  });

  it('answers bad DELETE query parameters with a structured 400 naming the field', async () => {
    const res = await api.del('/v1/rows?remoteId=x&sourceId=nope');
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({ error: 'validation_error', field: 'sourceId' });
    const missing = await api.del(`/v1/rows?sourceId=${await createSource(api)}`);
    expect(missing.body.detail.field).toBe('remoteId');
  });
});
