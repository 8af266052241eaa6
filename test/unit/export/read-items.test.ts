/** Reading an export's items through the client: sliced pages, details behind them, a bounded number in flight, vanished items counted. */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/api/service-error.js';
import { RESOURCES } from '../../../src/export/index.js';
import type { ExportService } from '../../../src/export/index.js';
import { readItems } from '../../../src/export/read-items.js';
import { ListStandIn } from '../../support/list-stand-in.js';

const spec = RESOURCES.conversations;

function fakeService(count: number, gone: ReadonlySet<string>) {
  const items = Array.from({ length: count }, (_, i) => ({ conversationId: `c${i}`, startTime: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString() }));
  const standIn = new ListStandIn({ items, window: spec.read.window!, itemsKey: 'conversations', bounds: 'exclusive', order: 'shuffled' });
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
    call: (name: string, options: { query: Record<string, string> }) =>
      track(() => {
        const page = standIn.page(options.query);
        return { conversations: page.items, pagination: { hasMore: page.hasMore, nextCursor: page.nextCursor } };
      }),
    getConversation: (id: string) =>
      track(() => {
        if (gone.has(id)) throw new ServiceError('FERRY_SERVICE_ERROR', 'not found', { endpoint: 'getConversation', status: 404 });
        return { conversationId: id, transcript: [{ speaker: 'A', text: id }] };
      }),
  } as unknown as ExportService;
  return { service, standIn, maxInFlight: () => maxInFlight };
}

describe('readItems', () => {
  it('reads every item once in slices, fetches details a bounded number at a time and counts vanished items', async () => {
    const { service, standIn, maxInFlight } = fakeService(400, new Set(['c7', 'c120']));
    const pages = [];
    for await (const page of readItems(service, spec, {}, { details: true, concurrency: 3, logger: pino({ level: 'silent' }) })) pages.push(page);
    expect(pages.reduce((sum, page) => sum + page.vanished, 0)).toBe(2);
    const ids = pages.flatMap((page) => page.items.map((item) => item.conversationId));
    expect(ids.sort()).toEqual(Array.from({ length: 400 }, (_, i) => `c${i}`).filter((id) => id !== 'c7' && id !== 'c120').sort());
    expect(pages.flatMap((page) => page.items).every((item) => Array.isArray(item.transcript))).toBe(true);
    expect(standIn.queries.some((query) => query.startedAfter !== undefined)).toBe(true);
    expect(maxInFlight()).toBeGreaterThan(1);
    expect(maxInFlight()).toBeLessThanOrEqual(3);
  });

  it('reads one cursor chain with slices: off', async () => {
    const { service, standIn } = fakeService(120, new Set());
    let count = 0;
    for await (const page of readItems(service, spec, {}, { details: false, concurrency: 4, slices: 'off', logger: pino({ level: 'silent' }) })) count += page.items.length;
    expect(count).toBe(120);
    expect(standIn.queries).toHaveLength(3);
    expect(standIn.queries.every((query) => query.startedAfter === undefined)).toBe(true);
  });
});
