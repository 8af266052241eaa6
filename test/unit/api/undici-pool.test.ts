import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool as PackagePool } from 'undici';
import { describe, expect, it } from 'vitest';
import { Pool } from '../../../src/api/fast/undici-pool.js';

describe('undici Pool loaded alone', () => {
  it('is the class undici exports, and sends a request', async () => {
    expect(Pool).toBe(PackagePool);
    const server = createServer((_request, response) => response.end('pong'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 1 });
    try {
      const answer = await pool.request({ path: '/', method: 'GET' });
      expect(await answer.body.text()).toBe('pong');
    } finally {
      await pool.close();
      server.close();
    }
  });
});
