import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../../../src/api/exchange.js';

describe('exchange', () => {
  const server = createServer((req, res) => {
    if (req.url === '/chunks') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-two': ['a', 'b'] });
      res.write('\ufeff{"text":"é');
      setTimeout(() => res.end('–ok"}'), 5);
    } else if (req.url === '/silent') {
      // never answers
    } else {
      res.writeHead(503, { 'retry-after': '2' }).end('busy');
    }
  });
  const agent = new Agent();
  let origin = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await agent.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads a body in several chunks whole, as UTF-8 without a byte order mark, with the headers', async () => {
    const answer = await exchange(agent, { origin, path: '/chunks', method: 'GET' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ text: 'é–ok' });
    expect(answer.headers['x-two']).toEqual(['a', 'b']);
  });

  it('answers error statuses as answers, not rejections', async () => {
    const answer = await exchange(agent, { origin, path: '/busy', method: 'GET' });
    expect(answer).toMatchObject({ status: 503, body: 'busy', headers: { 'retry-after': '2' } });
  });

  it('rejects with the signal reason when the signal fires', async () => {
    const controller = new AbortController();
    const reason = new Error('stop now');
    const pending = exchange(agent, { origin, path: '/silent', method: 'GET' }, controller.signal);
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });
});
