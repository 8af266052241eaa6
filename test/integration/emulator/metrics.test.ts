/** The emulator's /metrics: every answered request by endpoint and status, scrapes left out. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { EmulatorRequestMetrics, FerryMetrics } from '../../../src/metrics/index.js';
import { parseExposition, total } from '../metrics/prom-text.js';

describe('emulator /metrics', () => {
  let emulator: RunningEmulator;
  beforeEach(async () => {
    emulator = await startEmulator({ db: ':memory:', metrics: new EmulatorRequestMetrics() });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it('counts what a client sent, by endpoint and status, and not its own scrapes', async () => {
    const ours = new FerryMetrics();
    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey!, retry: { maxAttempts: 1 }, observer: ours.clientObserver() });
    try {
      await client.health();
      await client.listSources();
      await client.listSources();
      await expect(client.getSource('00000000-0000-4000-8000-000000000000')).rejects.toThrow();
      emulator.setFaults({ rate429: 1 });
      await expect(client.health()).rejects.toThrow();
      await fetch(`${emulator.url}/metrics`);
    } finally {
      await client.close();
    }
    const seen = parseExposition(await (await fetch(`${emulator.url}/metrics`)).text());
    const name = 'ferry_emulator_request_duration_seconds_count';
    expect(total(seen, name, { endpoint: 'health', status: '200' })).toBe(1);
    expect(total(seen, name, { endpoint: 'listSources', status: '200' })).toBe(2);
    expect(total(seen, name, { endpoint: 'getSource', status: '404' })).toBe(1);
    expect(total(seen, name, { endpoint: 'health', status: '429' })).toBe(1);
    expect(total(seen, name)).toBe(5);
    const sent = parseExposition(await ours.text());
    expect(total(sent, 'ferry_http_request_duration_seconds_count')).toBe(5);
    expect(total(sent, 'ferry_http_throttled_total', { endpoint: 'health' })).toBe(1);
  });
});
