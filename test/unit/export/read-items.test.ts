/** Reading an export's items: details in list order, a bounded number in flight, vanished items counted. */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/api/service-error.js';
import { RESOURCES } from '../../../src/export/index.js';
import type { ExportService } from '../../../src/export/index.js';
import { readItems } from '../../../src/export/read-items.js';

function fakeService(pages: number, perPage: number, gone: ReadonlySet<string>) {
  let inFlight = 0;
  let maxInFlight = 0;
  const track = async <T>(work: () => T): Promise<T> => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // Yield a few turns so that other requests can start meanwhile.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    inFlight--;
    return work();
  };
  const service = {
    pages: async function* () {
      for (let p = 0; p < pages; p++) {
        yield await track(() => ({ conversations: Array.from({ length: perPage }, (_, i) => ({ conversationId: `c${p * perPage + i}` })) }));
      }
    },
    getConversation: (id: string) =>
      track(() => {
        if (gone.has(id)) throw new ServiceError('FERRY_SERVICE_ERROR', 'not found', { endpoint: 'getConversation', status: 404 });
        return { conversationId: id, transcript: [{ speaker: 'A', text: id }] };
      }),
  } as unknown as ExportService;
  return { service, maxInFlight: () => maxInFlight };
}

describe('readItems', () => {
  it('fetches details a bounded number at a time, keeps list order and counts vanished items', async () => {
    const { service, maxInFlight } = fakeService(3, 50, new Set(['c7', 'c120']));
    const pages = [];
    for await (const page of readItems(service, RESOURCES.conversations, {}, { details: true, concurrency: 3, logger: pino({ level: 'silent' }) })) pages.push(page);
    expect(pages.map((page) => page.vanished)).toEqual([1, 0, 1]);
    const ids = pages.flatMap((page) => page.items.map((item) => item.conversationId));
    expect(ids).toEqual(Array.from({ length: 150 }, (_, i) => `c${i}`).filter((id) => id !== 'c7' && id !== 'c120'));
    expect(pages[0]!.items[0]).toMatchObject({ transcript: [{ speaker: 'A', text: 'c0' }] });
    expect(maxInFlight()).toBeGreaterThan(1);
    expect(maxInFlight()).toBeLessThanOrEqual(3);
  });
});
