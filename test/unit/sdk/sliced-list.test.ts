import { describe, expect, it } from 'vitest';
import { SERVICE_RESOURCES, readSlicedList, type ListItem, type ServiceResource } from '../../../src/sdk/index.js';
import { ListStandIn, standInConversation } from '../../support/list-stand-in.js';
import { virtualRead } from '../../support/virtual-read.js';

const rows = SERVICE_RESOURCES.rows;
const NOW = Date.UTC(2026, 11, 1);

/** Rows whose times pile up on millisecond and second edges, some sharing one instant, some without a time. */
function rowsAt(count: number, undated = 0): ListItem[] {
  const base = Date.UTC(2024, 0, 1);
  const items: ListItem[] = [];
  for (let i = 0; i < count; i++) {
    // Clusters: many rows on the same ms, runs one ms apart, then large gaps.
    const at = base + Math.floor(i / 7) * (i % 3 === 0 ? 1 : 60_000) + (i % 50 === 0 ? 0.5 : 0);
    items.push({ rowId: `r-${i}`, createdAt: new Date(at).toISOString() });
  }
  for (let i = 0; i < undated; i++) items.push({ rowId: `u-${i}`, createdAt: null });
  return items;
}

async function readAll(standIn: ListStandIn, resource: ServiceResource, options: { query?: Record<string, string>; undated?: 'include' | 'exclude'; concurrency?: number } = {}) {
  const ids: string[] = [];
  for await (const page of readSlicedList({
    resource,
    query: options.query ?? {},
    fetchPage: async (query) => standIn.page(query),
    concurrency: options.concurrency ?? 8,
    undated: options.undated ?? 'include',
    now: () => NOW,
  })) {
    for (const item of page.items) ids.push(String(item.rowId));
  }
  return ids;
}

describe('readSlicedList', () => {
  for (const bounds of ['inclusive', 'exclusive'] as const) {
    for (const order of ['time', 'shuffled'] as const) {
      it(`reads every item once with ${bounds} bounds, list ordered by ${order}`, async () => {
        const items = rowsAt(2000);
        const standIn = new ListStandIn({ items, window: rows.window!, itemsKey: 'rows', bounds, order });
        const ids = await readAll(standIn, { ...rows, window: { ...rows.window!, nullable: false } });
        expect(ids.length).toBe(items.length);
        expect(new Set(ids)).toEqual(new Set(items.map((item) => item.rowId)));
        // It did read in slices: bounded queries, more of them than a single chain's 60 pages would be alone.
        expect(standIn.queries.some((query) => query.createdAfter !== undefined)).toBe(true);
      });
    }
  }

  it('keeps items without the time field: a nullable field is read as one chain', async () => {
    const items = rowsAt(500, 30);
    const standIn = new ListStandIn({ items, window: rows.window!, itemsKey: 'rows', bounds: 'exclusive', order: 'shuffled' });
    const ids = await readAll(standIn, rows);
    expect(new Set(ids).size).toBe(530);
    expect(ids.length).toBe(530);
    expect(standIn.queries.every((query) => query.createdAfter === undefined && query.createdBefore === undefined)).toBe(true);
  });

  it('slices a nullable field once the query bounds it, taking the caller\'s bound inclusively either way', async () => {
    const items = rowsAt(1500, 10);
    const from = String(items[700]!.createdAt);
    const wanted = items.filter((item) => typeof item.createdAt === 'string' && Date.parse(item.createdAt) >= Math.floor(Date.parse(from))).map((item) => item.rowId);
    for (const bounds of ['inclusive', 'exclusive'] as const) {
      const standIn = new ListStandIn({ items, window: rows.window!, itemsKey: 'rows', bounds, order: 'shuffled' });
      const ids = await readAll(standIn, rows, { query: { createdAfter: from } });
      expect(ids.length).toBe(wanted.length);
      expect(new Set(ids)).toEqual(new Set(wanted));
      expect(standIn.queries.filter((query) => query.createdBefore !== undefined).length).toBeGreaterThan(1);
    }
  });

  it('with undated: exclude, slices a nullable field and says nothing of undated items beyond the first page', async () => {
    const items = rowsAt(1000);
    const standIn = new ListStandIn({ items, window: rows.window!, itemsKey: 'rows', bounds: 'inclusive' });
    const ids = await readAll(standIn, rows, { undated: 'exclude' });
    expect(new Set(ids).size).toBe(1000);
    expect(ids.length).toBe(1000);
  });

  it('stops every chain when the consumer stops', async () => {
    const standIn = new ListStandIn({ items: rowsAt(2000), window: rows.window!, itemsKey: 'rows', bounds: 'inclusive' });
    const resource = { ...rows, window: { ...rows.window!, nullable: false } };
    for await (const _page of readSlicedList({ resource, query: {}, fetchPage: async (q) => standIn.page(q), concurrency: 4, now: () => NOW })) break;
    const asked = standIn.queries.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(standIn.queries.length).toBeLessThanOrEqual(asked + 4);
  });

  it('fetches details behind the pages and counts the vanished', async () => {
    const items = rowsAt(300);
    const standIn = new ListStandIn({ items, window: rows.window!, itemsKey: 'rows', bounds: 'exclusive' });
    let vanished = 0;
    const detailed: string[] = [];
    for await (const page of readSlicedList({
      resource: { ...rows, window: { ...rows.window!, nullable: false } },
      query: {},
      fetchPage: async (q) => standIn.page(q),
      detail: async (item) => (String(item.rowId).endsWith('7') ? undefined : { ...item, detail: true }),
      concurrency: 6,
      now: () => NOW,
    })) {
      vanished += page.vanished;
      for (const item of page.items) detailed.push(String(item.rowId));
    }
    expect(vanished).toBe(30);
    expect(new Set(detailed).size).toBe(270);
  });
});

describe('readSlicedList plans its windows from probes', () => {
  for (const order of ['time', 'newest'] as const) {
    it(`reads a long list ordered by ${order} with few requests beyond its pages (probes, tails, no re-read chains)`, async () => {
      const base = Date.UTC(2025, 0, 1);
      const items: ListItem[] = Array.from({ length: 10_000 }, (_, i) => ({ rowId: `r-${i}`, createdAt: new Date(base + i * 600_000).toISOString() }));
      const standIn = new ListStandIn({ items, window: rows.window!, itemsKey: 'rows', bounds: 'inclusive', order });
      const ids = await readAll(standIn, { ...rows, window: { ...rows.window!, nullable: false } });
      expect(ids.length).toBe(10_000);
      expect(new Set(ids).size).toBe(10_000);
      const probes = standIn.queries.filter((query) => Number(query.limit) === 1).length;
      // Two rounds of eight probes at most; 200 pages of 50, plus the first page read again, tails and windows' last pages.
      expect(probes).toBeLessThanOrEqual(16);
      expect(standIn.queries.length - probes).toBeLessThan(200 * 1.2);
    });
  }
});

describe('readSlicedList on a virtual clock (every request one round trip)', () => {
  const base = Date.UTC(2025, 0, 1);
  const conversations = Array.from({ length: 10_000 }, (_, i) => ({ ...standInConversation(i), startTime: new Date(base + i * 600_000).toISOString() }));
  for (const order of ['time', 'newest', 'shuffled'] as const) {
    it(`reads 200 pages ordered by ${order} in close to 200 / 8 round trips at concurrency 8`, async () => {
      const read = await virtualRead(conversations, { order, concurrency: 8, slices: 'auto', now: NOW });
      expect(read.distinct).toBe(10_000);
      expect(read.items).toBe(10_000);
      // 25 round trips of pages, plus the first page, the probes and the windows' last pages. A list in no
      // time order once took 40: its first page, a sample of the whole list, was probed like a run of it.
      expect(read.roundTrips).toBeLessThanOrEqual(32);
    });
  }

  it('reads a burst listed in no time order in far fewer round trips than one window holding the burst would take', async () => {
    // 8,000 items within 2 h 13 min, 2,000 over two months after: windows of equal span leave the burst in one of them.
    const burst = conversations.map((item, i) => ({ ...item, startTime: new Date(i < 8000 ? base + i * 1000 : base + 60 * 86_400_000 + i * 600_000).toISOString() }));
    const read = await virtualRead(burst, { order: 'shuffled', concurrency: 8, slices: 'auto', now: NOW });
    expect(read.distinct).toBe(10_000);
    expect(read.items).toBe(10_000);
    // Windows cut at the sample's own times: records on those edges are read once either way the service takes a bound.
    const inclusive = await virtualRead(burst, { order: 'shuffled', concurrency: 8, slices: 'auto', now: NOW, bounds: 'inclusive' });
    expect([inclusive.items, inclusive.distinct]).toEqual([10_000, 10_000]);
    // 162 round trips when the windows were cut by span alone.
    expect(read.roundTrips).toBeLessThanOrEqual(60);
  });
});

describe('readSlicedList tells its fetcher which requests are probes', () => {
  it('marks exactly the one-item probes of the plan, which the transport then sends unspread', async () => {
    const base = Date.UTC(2025, 0, 1);
    const items: ListItem[] = Array.from({ length: 2_000 }, (_, i) => ({ rowId: `r-${i}`, createdAt: new Date(base + i * 600_000).toISOString() }));
    const standIn = new ListStandIn({ items, window: rows.window!, itemsKey: 'rows', bounds: 'exclusive', order: 'time' });
    const marked: { limit: number; probe: boolean }[] = [];
    let read = 0;
    for await (const page of readSlicedList({
      resource: { ...rows, window: { ...rows.window!, nullable: false } },
      query: {},
      fetchPage: async (query, _signal, probe) => {
        marked.push({ limit: Number(query.limit), probe });
        return standIn.page(query);
      },
      concurrency: 8,
      now: () => NOW,
    })) read += page.items.length;
    expect(read).toBe(2_000);
    expect(marked.some((request) => request.probe)).toBe(true);
    for (const request of marked) expect(request.probe).toBe(request.limit === 1);
  });
});

describe('readSlicedList splits windows that prove long', () => {
  const dated = { ...rows, window: { ...rows.window!, nullable: false } };
  const base = Date.UTC(2025, 0, 1);
  /** A dense burst (one row a second) beside a sparse spread (one an hour), and runs of rows sharing one millisecond. */
  const shapes: Record<string, (i: number) => number> = {
    burst: (i) => (i < 2400 ? base + i * 1000 : base + 30 * 86_400_000 + i * 3_600_000),
    instants: (i) => base + Math.floor(i / 240) * 600_000,
  };
  for (const [shape, at] of Object.entries(shapes)) {
    for (const bounds of ['inclusive', 'exclusive'] as const) {
      for (const order of ['time', 'newest'] as const) {
        it(`reads ${shape} once each with ${bounds} bounds, ordered by ${order}, its long windows split apart`, async () => {
          const items: ListItem[] = Array.from({ length: 3000 }, (_, i) => ({ rowId: `r-${i}`, createdAt: new Date(at(i)).toISOString() }));
          const standIn = new ListStandIn({ items, window: rows.window!, itemsKey: 'rows', bounds, order });
          const ids = await readAll(standIn, dated);
          expect(ids.length).toBe(3000);
          expect(new Set(ids).size).toBe(3000);
          const pages = standIn.queries.filter((query) => Number(query.limit) > 1);
          // 60 pages of items; windows split early re-read a page each (and end on a part-filled one), not whole runs of pages.
          expect(pages.length).toBeLessThan(60 * 3.5);
          if (shape === 'instants') {
            // Windows one millisecond wide: an instant's rows read on their own.
            expect(pages.some((query) => Date.parse(String(query.createdBefore)) - Date.parse(String(query.createdAfter)) === 2)).toBe(true);
          }
        });
      }
    }
  }
});

describe('readSlicedList keeps the consumer off the read\'s critical path', () => {
  it('lets every answer that came in together send its next request before the consumer works on any of them', async () => {
    const standIn = new ListStandIn({ items: rowsAt(2000), window: rows.window!, itemsKey: 'rows', bounds: 'exclusive' });
    const events: string[] = [];
    let waiting: (() => void)[] = [];
    // Answers come back in trains: each on a callback of its own, all of a train on one turn of the event loop, as answers on several sockets do.
    const train = setInterval(() => {
      if (waiting.length === 0) return;
      events.push('train');
      const due = waiting;
      waiting = [];
      for (const answer of due) {
        setImmediate(() => {
          events.push('answer');
          answer();
        });
      }
    }, 1);
    try {
      for await (const page of readSlicedList({
        resource: { ...rows, window: { ...rows.window!, nullable: false } },
        query: {},
        fetchPage: async (query) => {
          events.push('fetch');
          await new Promise<void>((resolve) => waiting.push(resolve));
          return standIn.page(query);
        },
        concurrency: 4,
        now: () => NOW,
      })) {
        if (page.items.length > 0) events.push('consume');
      }
    } finally {
      clearInterval(train);
    }
    // The answers of one train each send their window's next request; the consumer runs after the last of them, never between.
    const turns = events.join(' ').split('train').slice(1);
    expect(turns.filter((turn) => /answer.*answer/.test(turn)).length).toBeGreaterThan(10);
    for (const turn of turns) expect(turn).not.toMatch(/answer.*consume.*answer/);
  });
});

describe('readSlicedList drops what the service lists again on the next page', () => {
  /** A stand-in whose every page after the first starts with the previous page's last item again (as the spec allows at a page boundary). */
  function repeatingPages(standIn: ListStandIn) {
    let repeatedByService = 0;
    const fetchPage = async (query: Record<string, string | number | boolean>) => {
      const answer = standIn.page(query);
      if (query.cursor === undefined || answer.items.length === 0) return answer;
      const previous = standIn.page({ ...query, cursor: String(Number(query.cursor) - 1), limit: 1 });
      repeatedByService += previous.items.length;
      return { ...answer, items: [...previous.items, ...answer.items] };
    };
    return { fetchPage, repeated: () => repeatedByService };
  }

  for (const [name, resource] of [
    ['one chain (documents: no time filter)', SERVICE_RESOURCES.documents],
    ['time windows (rows)', { ...rows, window: { ...rows.window!, nullable: false } }],
  ] as const) {
    it(`${name}: every record once, each repeat counted`, async () => {
      const idField = resource.idField;
      const items: ListItem[] = rowsAt(1200).map((item, i) => ({ ...item, [idField]: `d-${i}` }));
      const standIn = new ListStandIn({ items, window: rows.window!, itemsKey: 'x', bounds: 'exclusive' });
      const service = repeatingPages(standIn);
      const ids: string[] = [];
      let repeated = 0;
      for await (const page of readSlicedList({ resource, query: {}, fetchPage: service.fetchPage, concurrency: 8, now: () => NOW })) {
        repeated += page.repeated;
        for (const item of page.items) ids.push(String(item[idField]));
      }
      expect(ids.length).toBe(1200);
      expect(new Set(ids).size).toBe(1200);
      expect(service.repeated()).toBeGreaterThan(10);
      // One chain: every repeat was of a record it had emitted. Windows: a repeat the window did not own (the edge
      // a millisecond below its range, an id its parent window had emitted) was never emitted, so it is no repeat.
      if (resource.window) expect(repeated).toBeGreaterThan(service.repeated() / 2);
      else expect(repeated).toBe(service.repeated());
      expect(repeated).toBeLessThanOrEqual(service.repeated());
    });
  }
});
