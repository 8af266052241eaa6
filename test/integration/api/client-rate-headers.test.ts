/**
 * A service that states its limit in its headers (RateLimit-*, X-RateLimit-*)
 * is taken at its word at once: the client's request control bounds its rate
 * by the announced policy, and waits for the reset when none is left.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { RequestControl } from '../../../src/sdk/index.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  })));
});

async function serve(headersFor: (n: number) => Record<string, string | undefined>): Promise<{ url: string; arrivals: number[] }> {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    arrivals.push(performance.now());
    req.resume();
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(headersFor(arrivals.length)).filter((entry): entry is [string, string] => entry[1] !== undefined));
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ status: 'ok', org_id: '00000000-0000-4000-8000-000000000001', scopes: [] }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals };
}

describe('service client: a service that states its rate limit', () => {
  it('RateLimit-Policy bounds the rate at once, without a 429', async () => {
    const service = await serve(() => ({ 'ratelimit-policy': '20;w=1', 'ratelimit-remaining': '19', 'ratelimit-reset': '1' }));
    const control = new RequestControl();
    const client = new ServiceClient({ baseUrl: service.url, apiKey: 'k', control });
    await client.health();
    expect(control.stats().rate).toBeLessThanOrEqual(20);
    expect(control.stats().rateReason).toBe('throttled');
    await client.close();
  });

  it('X-RateLimit-Remaining: 0 with a reset holds the next request until then', async () => {
    const service = await serve((n) => (n === 1 ? { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' } : {}));
    const client = new ServiceClient({ baseUrl: service.url, apiKey: 'k', control: new RequestControl() });
    await client.health();
    await client.health();
    expect(service.arrivals).toHaveLength(2);
    expect(service.arrivals[1]! - service.arrivals[0]!).toBeGreaterThanOrEqual(900);
    await client.close();
  });
});
