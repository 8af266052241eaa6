/**
 * The sink with the real ServiceClient against the embedded emulator: the
 * whole path over HTTP, including 429s the emulator injects.
 */
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { ServiceClient } from '../../../src/api/client.js';
import { ensureTarget } from '../../../src/sink/ensure-target.js';
import { ObjectTypeEvolver } from '../../../src/sink/object-type-evolver.js';
import { Pusher } from '../../../src/sink/pusher.js';
import type { SinkService } from '../../../src/sink/service-port.js';
import type { FieldType } from '../../../src/sdk/types.js';
import { inferFieldType } from '../../../src/mapping/index.js';

// Type-level: the real client satisfies the sink's port.
const asPort = (client: ServiceClient): SinkService => client;

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined };

let emu: RunningEmulator;
let client: ServiceClient;

beforeAll(async () => {
  emu = await startEmulator({ db: ':memory:' });
  client = new ServiceClient({ baseUrl: emu.url, apiKey: emu.devKey ?? '', concurrency: 8, timeoutMs: 5000, retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50 } });
});

afterAll(async () => {
  await client?.close();
  await emu?.close();
});

const target = (fields: Record<string, FieldType>, newFields: 'evolve' | 'freeze' | 'discard' = 'evolve') => ({
  type: 'row' as const,
  source: { name: 'crm', displayName: 'CRM' },
  objectType: { name: 'deal', fields: Object.fromEntries(Object.entries(fields).map(([k, type]) => [k, { type, required: false, label: undefined }])) },
  newFields,
});

describe('sink against the emulator', () => {
  it('creates, finds and evolves the target without dropping fields', async () => {
    const service = asPort(client);
    const first = await ensureTarget(service, target({ amount: 'double' }), { inferredFields: new Map([['stage', 'string']]) });
    expect(first.changes.map((c) => c.kind)).toEqual(['create-source', 'create-object-type']);

    const again = await ensureTarget(service, target({ amount: 'double' }));
    expect(again.changes).toEqual([]);
    expect(again.sourceId).toBe(first.sourceId);
    expect(again.objectType?.id).toBe(first.objectType?.id);

    const evolved = await ensureTarget(service, target({ amount: 'double', closed: 'date' }));
    expect(evolved.changes).toEqual([{ kind: 'add-fields', name: 'deal', fields: [{ name: 'closed', type: 'date' }] }]);
    const stored = await client.getObjectType(first.objectType!.id);
    expect(stored.fieldDefinitions.map((d) => [d.name, d.fieldType])).toEqual([['amount', 'double'], ['stage', 'string'], ['closed', 'date']]);

    await expect(ensureTarget(service, target({ amount: 'int' }))).rejects.toMatchObject({ code: 'FERRY_CONFIG_INVALID' });
  });

  it('pushes rows through 429s, evolves the schema on the way, and dead-letters a rejected row', async () => {
    const service = asPort(client);
    const ensured = await ensureTarget(service, { ...target({ amount: 'double' }), objectType: { name: 'ticket', fields: { amount: { type: 'double', required: false, label: undefined } } } });
    const objectType = ensured.objectType!;
    const evolver = new ObjectTypeEvolver({ service, objectType, target: { newFields: 'evolve' }, inferType: (_field, sample) => inferFieldType([sample]), logger: quiet });
    emu.setFaults({ rate429: 0.2, retryAfterSeconds: 0, seed: 7 });
    // Random 429s would walk AIMD down to its floor; keep the floor high so the test stays fast.
    const pusher = new Pusher({ service, concurrency: 4, maxRequestsPerSecond: 500, minRequestsPerSecond: 100, maxAttempts: 12, baseDelayMs: 2, maxDelayMs: 20, minDelayMs: 1, logger: quiet });
    try {
      const outcomes = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
        const resolved = await evolver.resolve({ amount: i * 1.5, priority: i % 3 });
        const fields = Object.fromEntries([...resolved.accepted].map(([name, fieldType]) => [name, { value: resolved.fields[name], fieldType }]));
        await pusher.waitForCapacity();
        return pusher.push({ kind: 'row', remoteId: `t${i}`, body: { id: `t${i}`, sourceId: ensured.sourceId, objectTypeId: objectType.id, name: `ticket ${i}`, public: true, fields } });
      }));
      expect(outcomes.every((o) => o.ok && o.status === 'created')).toBe(true);
      expect(evolver.patchCount).toBe(1);
      expect(pusher.stats().throttled).toBeGreaterThan(0);
      expect(pusher.stats().requests).toBe(30 + pusher.stats().retries);
    } finally {
      emu.setFaults({});
    }

    const rejected = await pusher.push({
      kind: 'row',
      remoteId: 'bad',
      body: { id: 'bad', sourceId: ensured.sourceId, objectTypeId: objectType.id, name: 'bad', public: true, fields: { amount: { value: 'lots', fieldType: 'double' } } },
    });
    expect(rejected.ok).toBe(false);
    if (!rejected.ok) {
      expect(rejected.status).toBe(400);
      expect(rejected.reason).toMatch(/^400 validation_error: .*\(field fields\.amount.*request /);
      expect(rejected.errorBody).toMatchObject({ detail: { error: 'validation_error', field: expect.stringContaining('amount') } });
    }

    const repeat = await pusher.push({
      kind: 'row', remoteId: 't0',
      body: { id: 't0', sourceId: ensured.sourceId, objectTypeId: objectType.id, name: 'ticket 0', public: true, fields: { amount: { value: 0, fieldType: 'double' } } },
    });
    expect(repeat).toMatchObject({ ok: true, status: 'updated' });
  });

  it('honours the Retry-After of a real 429 answer', async () => {
    const sleeps: number[] = [];
    let now = Date.now();
    const pusher = new Pusher({
      service: asPort(client), concurrency: 1, maxRequestsPerSecond: 100, maxAttempts: 3, logger: quiet,
      // A virtual clock: record the waits instead of spending them.
      clock: { now: () => Math.max(now, Date.now()), sleep: async (ms) => { sleeps.push(ms); now = Math.max(now, Date.now()) + ms; } },
    });
    emu.setFaults({ rate429: 1, retryAfterSeconds: 2 });
    try {
      await expect(pusher.delete({ kind: 'message', remoteId: 'none', sourceId: '6f1d3c0e-8a4b-4c3d-9e2f-0a1b2c3d4e5f' })).rejects.toMatchObject({ code: 'FERRY_SERVICE_ERROR' });
    } finally {
      emu.setFaults({});
    }
    expect(sleeps.filter((ms) => ms > 1500 && ms <= 2000)).toHaveLength(2);
  });

  it('a refused key is fatal', async () => {
    const bad = new ServiceClient({ baseUrl: emu.url, apiKey: 'sk_live_not_a_key', concurrency: 1, timeoutMs: 5000 });
    try {
      const pusher = new Pusher({ service: asPort(bad), concurrency: 1, maxRequestsPerSecond: 10, maxAttempts: 3, logger: quiet });
      await expect(
        pusher.push({ kind: 'document', remoteId: 'd', body: { id: 'd', sourceId: '6f1d3c0e-8a4b-4c3d-9e2f-0a1b2c3d4e5f', content: 'aGk=', displayName: 'd', public: true } }),
      ).rejects.toMatchObject({ code: 'FERRY_SERVICE_AUTH' });
    } finally {
      await bad.close();
    }
  });
});
