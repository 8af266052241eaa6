/**
 * The sliced reader on a virtual clock: every request (page, probe, detail)
 * takes exactly one round trip, and the clock moves only when nothing else
 * can run, so the figure is the round trips on the read's critical path —
 * the reader's plan and splits alone, whatever the machine's load. The list
 * is the in-memory stand-in (test/support/list-stand-in.ts), in time order,
 * newest first or shuffled.
 */
import { readSlicedList, SERVICE_RESOURCES, type ListItem } from '../../src/sdk/index.js';
import { ListStandIn } from './list-stand-in.js';

export interface VirtualRead {
  /** Round trips from the first request to the last answer. */
  roundTrips: number;
  requests: number;
  probes: number;
  /** Slot round trips with nothing in flight, of concurrency × roundTrips. */
  idle: number;
  /** Items yielded, and how many distinct ids among them. */
  items: number;
  distinct: number;
}

export async function virtualRead(
  items: ListItem[],
  options: { order: 'time' | 'newest' | 'shuffled'; concurrency: number; slices: 'auto' | 'off'; bounds?: 'inclusive' | 'exclusive'; /** The reader's clock, epoch ms (probes reach up to it). @default the machine's */ now?: number },
): Promise<VirtualRead> {
  const resource = SERVICE_RESOURCES.conversations;
  const standIn = new ListStandIn({ items, window: resource.window!, itemsKey: 'conversations', bounds: options.bounds ?? 'exclusive', order: options.order });
  let clock = 0;
  const pending: { at: number; resolve: () => void }[] = [];
  let requests = 0;
  let probes = 0;
  const ids: string[] = [];
  let done = false;
  const read = (async () => {
    for await (const page of readSlicedList({
      resource,
      query: {},
      concurrency: options.concurrency,
      slices: options.slices,
      ...(options.now === undefined ? {} : { now: () => options.now! }),
      fetchPage: async (query) => {
        requests += 1;
        if (Number(query.limit) === 1) probes += 1;
        const answer = standIn.page(query);
        await new Promise<void>((resolve) => pending.push({ at: clock + 1, resolve }));
        return answer;
      },
    })) {
      for (const item of page.items) ids.push(String(item[resource.idField]));
    }
  })().finally(() => {
    done = true;
  });
  while (!done) {
    // Let every continuation run before the clock moves: the reader plans only on promises, never on timers.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    if (done || pending.length === 0) continue;
    pending.sort((a, b) => a.at - b.at);
    clock = pending[0]!.at;
    while (pending.length > 0 && pending[0]!.at === clock) pending.shift()!.resolve();
  }
  await read;
  return { roundTrips: clock, requests, probes, idle: options.concurrency * clock - requests, items: ids.length, distinct: new Set(ids).size };
}
