/**
 * A stand-in for one of the service's list endpoints, in memory: it filters
 * by a time field with inclusive or exclusive bounds (the spec says neither),
 * drops items without the field from any bounded query (as the emulator
 * does), orders items as told and pages them by an offset cursor. As a
 * function for unit tests, or as an HTTP server (answering each page after a
 * delay) for end-to-end tests and the bench.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListAnswer, ListItem, ListQuery, TimeWindowFilter } from '../../src/sdk/index.js';

export interface StandInOptions {
  items: ListItem[];
  window: TimeWindowFilter;
  itemsKey: string;
  bounds: 'inclusive' | 'exclusive';
  /** How the list is ordered: by the time field (oldest first, or newest first as the emulator does), or a fixed shuffle. @default 'time' */
  order?: 'time' | 'newest' | 'shuffled';
  /** Milliseconds before each list answer. @default 0 */
  delayMs?: number;
}

export class ListStandIn {
  /** Every query the stand-in answered, in order. */
  readonly queries: ListQuery[] = [];
  readonly #options: StandInOptions;
  readonly #ordered: ListItem[];
  /** The time of each item of #ordered (NaN: none), parsed once so a page costs no Date.parse per item. */
  readonly #times: number[];
  /** Shuffled: the positions in #ordered sorted by time (undated first), for finding a window's items by binary search. */
  #byTime: number[] | undefined;
  /** Shuffled: each window's matching items in list order, found once (the window's later pages ask again with a cursor). */
  readonly #windows = new Map<string, ListItem[]>();

  constructor(options: StandInOptions) {
    this.#options = options;
    const field = options.window.field;
    const time = (item: ListItem) => (typeof item[field] === 'string' ? Date.parse(item[field]) : Number.NaN);
    this.#ordered = options.order === 'shuffled' ? shuffle(options.items) : [...options.items].sort((a, b) => (time(a) || -Infinity) - (time(b) || -Infinity));
    if (options.order === 'newest') this.#ordered.reverse();
    this.#times = this.#ordered.map(time);
  }

  readonly #texts = new WeakMap<ListItem, string>();

  #json(item: ListItem): string {
    let text = this.#texts.get(item);
    if (text === undefined) {
      text = JSON.stringify(item);
      this.#texts.set(item, text);
    }
    return text;
  }

  /** One page for a query, as the list endpoint answers it. */
  page(query: ListQuery): ListAnswer {
    this.queries.push(query);
    const { window, bounds } = this.#options;
    const after = typeof query[window.after] === 'string' ? Date.parse(query[window.after] as string) : undefined;
    const before = typeof query[window.before] === 'string' ? Date.parse(query[window.before] as string) : undefined;
    const times = this.#times;
    const bounded = after !== undefined || before !== undefined;
    // Items without the field are out of any bounded query; they sort as the earliest.
    const tooEarly = (i: number) => bounded && (Number.isNaN(times[i]!) || (after !== undefined && (bounds === 'inclusive' ? times[i]! < after : times[i]! <= after)));
    const tooLate = (i: number) => before !== undefined && !Number.isNaN(times[i]!) && (bounds === 'inclusive' ? times[i]! > before : times[i]! >= before);
    const limit = Number(query.limit ?? 50);
    const offset = query.cursor === undefined ? 0 : Number(query.cursor);
    let matching: ListItem[];
    let start = 0;
    let end: number;
    if (this.#options.order === 'shuffled') {
      matching = bounded ? this.#shuffledWindow(`${after}|${before}`, tooEarly, tooLate) : this.#ordered;
      end = matching.length;
    } else {
      // A list in time order matches in one run of it, found by two binary searches: a page costs
      // the stand-in the page's items, not the whole list's, as an indexed service's would.
      matching = this.#ordered;
      const n = matching.length;
      const ascending = this.#options.order !== 'newest';
      start = firstIndex(n, ascending ? (i) => !tooEarly(i) : (i) => !tooLate(i));
      end = Math.max(start, firstIndex(n, ascending ? tooLate : tooEarly));
    }
    const from = Math.min(end, start + offset);
    const items = matching.slice(from, Math.min(end, from + limit));
    const hasMore = from + limit < end;
    return { items, hasMore, nextCursor: hasMore ? String(offset + limit) : null };
  }

  /**
   * A shuffled list's items in a window, in list order: found by two binary searches over the items by time
   * and put back in list order, once per window, as an indexed service would (a filter over the whole list
   * per page made the stand-in, not the reader, what a 100,000-item benchmark measured).
   */
  #shuffledWindow(key: string, tooEarly: (i: number) => boolean, tooLate: (i: number) => boolean): ListItem[] {
    const cached = this.#windows.get(key);
    if (cached) return cached;
    const times = this.#times;
    this.#byTime ??= times.map((_time, i) => i).sort((a, b) => (times[a]! || -Infinity) - (times[b]! || -Infinity));
    const byTime = this.#byTime;
    const start = firstIndex(byTime.length, (k) => !tooEarly(byTime[k]!));
    const end = Math.max(start, firstIndex(byTime.length, (k) => tooLate(byTime[k]!)));
    const matching = byTime.slice(start, end).sort((a, b) => a - b).map((i) => this.#ordered[i]!);
    if (this.#windows.size >= 4096) this.#windows.clear();
    this.#windows.set(key, matching);
    return matching;
  }

  /** Serve the list over HTTP on 127.0.0.1 (port 0) at `path`, answering each page after delayMs. */
  async listen(path: string): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      if (url.pathname !== path) {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'not found' }));
        return;
      }
      const query = Object.fromEntries(url.searchParams);
      const answer = this.page(query);
      // Each item's JSON is made once: the stand-in's own CPU must not be what a benchmark measures.
      const items = answer.items.map((item) => this.#json(item)).join(',');
      const body = `{${JSON.stringify(this.#options.itemsKey)}:[${items}],"pagination":${JSON.stringify({ nextCursor: answer.nextCursor, hasMore: answer.hasMore })}}`;
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(body), this.#options.delayMs ?? 0);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      server,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }
}

/** A conversation list item as the service's zod shape accepts it, started i × 10 minutes after 2025-01-01. */
export function standInConversation(i: number): Record<string, unknown> {
  const start = Date.UTC(2025, 0, 1) + i * 600_000;
  return {
    conversationId: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    sourceId: null,
    title: `Call ${i}`,
    startTime: new Date(start).toISOString(),
    endTime: new Date(start + 1_800_000).toISOString(),
    type: 'EXTERNAL',
    participants: [{ name: 'Agent', email: 'agent@example.com' }],
  };
}

/** The first index in [0, n) where `holds` is true, for a `holds` false then true along the list (n: never). */
function firstIndex(n: number, holds: (i: number) => boolean): number {
  let low = 0;
  let high = n;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (holds(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** A fixed shuffle (seeded), so a failing order can be replayed. */
function shuffle<T>(items: readonly T[]): T[] {
  const out = [...items];
  let seed = 42;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
