import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startApi, type Api } from './helpers.js';

describe('emulator: fault injection', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.emulator.close());

  it('answers a share of requests with 429 and Retry-After', async () => {
    api.emulator.setFaults({ rate429: 0.5, retryAfterSeconds: 7, seed: 42 });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await api.get('/v1/health');
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get('retry-after')).toBe('7');
    }
    const throttled = statuses.filter((s) => s === 429).length;
    expect(throttled).toBeGreaterThan(5);
    expect(throttled).toBeLessThan(35);
    expect(statuses.filter((s) => s === 200).length).toBe(40 - throttled);
    api.emulator.setFaults({});
  });

  it('is reproducible with the same seed', async () => {
    const run = async () => {
      api.emulator.setFaults({ rate500: 0.3, seed: 7 });
      const out: number[] = [];
      for (let i = 0; i < 15; i++) out.push((await api.get('/v1/health')).status);
      return out;
    };
    const first = await run();
    expect(first).toContain(500);
    expect(await run()).toEqual(first);
    api.emulator.setFaults({});
  });

  it('drops connections without an answer', async () => {
    api.emulator.setFaults({ dropRate: 1 });
    await expect(request(`${api.emulator.url}/v1/health`, { headers: { authorization: `Bearer ${api.key}` } })).rejects.toThrow();
    // Faults never touch the unauthenticated health check nor the admin endpoints.
    expect((await api.get('/healthcheck', null)).status).toBe(200);
    api.emulator.setFaults({});
    expect((await api.get('/v1/health')).status).toBe(200);
  });

  it('rate-limits per key with a token bucket', async () => {
    api.emulator.setFaults({ rateLimitPerSecond: 0.5, rateLimitBurst: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.get('/v1/health')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const limited = await api.get('/v1/health');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another key has its own bucket (it is unknown, so it gets 401, not 429).
    expect((await api.get('/v1/health', 'sk_live_other')).status).toBe(401);
    api.emulator.setFaults({});
  });

  it('adds latency', async () => {
    api.emulator.setFaults({ latencyMs: 150 });
    const started = Date.now();
    await api.get('/v1/health');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    api.emulator.setFaults({});
  });

  it('is configurable through the admin endpoint', async () => {
    const put = await fetch(`${api.emulator.url}/_admin/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rate500: 1 }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ rate500: 1 });
    expect((await api.get('/v1/health')).status).toBe(500);
    const got = await fetch(`${api.emulator.url}/_admin/faults`);
    expect(await got.json()).toEqual({ rate500: 1 });
    const bad = await fetch(`${api.emulator.url}/_admin/faults`, { method: 'PUT', body: JSON.stringify({ rate500: 2 }) });
    expect(bad.status).toBe(400);
    await bad.arrayBuffer();
    await fetch(`${api.emulator.url}/_admin/faults`, { method: 'PUT', body: '{}' }).then((r) => r.arrayBuffer());
    expect((await api.get('/v1/health')).status).toBe(200);
  });

  it('resets the data through the admin endpoint', async () => {
    await api.post('/v1/sources', { name: 'to-reset', displayName: 'x' });
    const reset = await fetch(`${api.emulator.url}/_admin/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    await reset.arrayBuffer();
    expect((await api.get('/v1/sources')).body.sources).toEqual([]);
    expect((await api.get('/v1/health')).status).toBe(200);
  });
});
