/**
 * The client against the embedded emulator: the two are built from the same
 * ENDPOINTS table, so this checks that what the client sends is what the
 * emulator accepts, and that its error bodies classify as documented.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { ServiceError } from '../../../src/api/service-error.js';
import { startEmulator } from '../../../src/emulator/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { PIPELINE, dealObjectType, dealRow, enronMessage, harperValleyConversation, rfcDocument } from '../../unit/api/fixtures.js';

let emulator: RunningEmulator;
let client: ServiceClient;

beforeAll(async () => {
  emulator = await startEmulator({ db: ':memory:', askDelayMs: 30, askWaitMs: 10 });
  client = new ServiceClient({ baseUrl: `${emulator.url}/`, apiKey: emulator.devKey, retry: { maxAttempts: 8, baseDelayMs: 1, maxDelayMs: 20 } });
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe('client against the emulator', () => {
  it('pushes every record kind, reads them back page by page, patches and deletes', async () => {
    const source = await client.createSource({ name: 'crm', displayName: 'CRM' });
    const objectType = await client.createObjectType({ ...dealObjectType(), sourceId: source.id });
    for (const i of [0, 1, 2]) {
      const res = await client.createRow({ ...dealRow(i), sourceId: source.id, objectTypeId: objectType.id });
      expect(res.status).toBe('created');
    }
    const ids: string[] = [];
    for await (const row of client.iterateRows({ objectTypeId: objectType.id, limit: 2 })) ids.push(row.remoteId);
    expect(ids.sort()).toEqual(PIPELINE.map((p) => p.opportunity_id).sort());

    const key = { remoteId: PIPELINE[2].opportunity_id, sourceId: source.id };
    expect((await client.updateRow(key, { fields: { deal_stage: { value: 'Engaging', fieldType: 'string' } } })).status).toBe('updated');
    expect((await client.deleteRow(key)).status).toBe('deleted');

    await client.createConversation({ ...harperValleyConversation(), sourceId: source.id });
    await client.createMessage({ ...enronMessage(), sourceId: source.id, public: true });
    await client.createDocument({ ...rfcDocument(), sourceId: source.id });
    const [conversation] = (await client.listConversations({ limit: 1 })).conversations;
    expect(conversation?.title).toBe('Harper Valley National Bank: check balance (savings)');
    const detail = await client.getConversation(conversation?.conversationId ?? '');
    expect(detail.transcript?.length).toBe(8);
  });

  it('classifies the emulator error bodies', async () => {
    const rejected = await client.getRow('5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d').catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(ServiceError);
    expect(rejected).toMatchObject({ status: 404, code: 'FERRY_RECORD_REJECTED', permanent: true });

    const badQuery = await client.listDeals({ limit: 51 }).catch((e: unknown) => e);
    expect(badQuery).toMatchObject({ status: 422, field: 'limit' });

    const stranger = new ServiceClient({ baseUrl: emulator.url, apiKey: 'sk_live_not_a_real_key_000' });
    await expect(stranger.health()).rejects.toMatchObject({ code: 'FERRY_SERVICE_AUTH', status: 401 });
    await stranger.close();
  });

  it('polls an ask run to completion', async () => {
    const run = await client.ask('what did james miller ask about?', { pollIntervalMs: 5 });
    expect(run.status).toBe('completed');
  });

  it('rides out injected 429s, 500s and dropped connections', async () => {
    emulator.setFaults({ rate429: 0.2, rate500: 0.1, dropRate: 0.1, retryAfterSeconds: 0, seed: 7 });
    try {
      for (let i = 0; i < 40; i++) await client.health();
    } finally {
      emulator.setFaults({});
    }
  });
});
