/**
 * The service client keeps the API key on the service's origin: a redirect
 * to another host (127.0.0.2 poses as one) is refused, never followed with
 * the key, and an answer larger than the cap is refused before it fills memory.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { isFerryError, type FerryError } from '../../../src/sdk/index.js';

const KEY = 'sk_live_origin_test_key_0099';
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  })));
});

async function serve(host: string, answer: (res: ServerResponse) => void): Promise<{ url: string; seen: { url: string; headers: IncomingHttpHeaders }[] }> {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, seen };
}

describe('service client: credentials and caps', () => {
  it.each([301, 302, 307, 308])('refuses a %i redirect to another host; the other host sees nothing', async (status) => {
    const other = await serve('127.0.0.2', (res) => res.end('{"status":"ok"}'));
    const service = await serve('127.0.0.1', (res) => {
      res.writeHead(status, { location: `${other.url}/health?steal=1` });
      res.end();
    });
    const client = new ServiceClient({ baseUrl: service.url, apiKey: KEY });
    try {
      const error = (await client.listSources({}).catch((e: unknown) => e)) as FerryError;
      expect(isFerryError(error, 'FERRY_ORIGIN_REFUSED')).toBe(true);
      expect(error.message).toContain(`${other.url}/health`);
      expect(error.hint).toMatch(/change service\.baseUrl/);
      expect(other.seen).toHaveLength(0);
      expect(service.seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(JSON.stringify(error)).not.toContain(KEY);
    } finally {
      await client.close();
    }
  });

  it('refuses an answer whose Content-Length is over the cap, and one that grows past it', async () => {
    const huge = await serve('127.0.0.1', (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1 << 30) });
      res.write('{"sources":[');
    });
    const endless = await serve('127.0.0.1', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"sources":[');
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let i = 0; i < 64; i++) res.write(chunk);
      res.end(']}');
    });
    for (const [url, pattern] of [[huge.url, /announced 1073741824 bytes/], [endless.url, /grew past the cap of 1048576/]] as const) {
      const client = new ServiceClient({ baseUrl: url, apiKey: KEY, maxResponseBytes: 1 << 20, retry: { maxAttempts: 1 } });
      try {
        const error = (await client.listSources({}).catch((e: unknown) => e)) as FerryError;
        expect(isFerryError(error, 'FERRY_SERVICE_ERROR')).toBe(true);
        expect(error.message).toMatch(pattern);
      } finally {
        await client.close();
      }
    }
  });
});
