/**
 * Reading one of the service's lists fast: as many cursor chains at once as
 * the request ceiling allows, each over a time window of the list (see
 * list-windows.ts), with each item's detail fetched behind the pages. A
 * window that still has pages while requests could be spared is split again,
 * and so is one estimated to hold far more than a chain's share of what is
 * left, on its first pages (a split re-reads what the window read), so the
 * read spreads to `concurrency` chains whatever the data's spread in time.
 * Pages come out in no particular order.
 *
 * A list whose time field may be null is read as one chain unless the
 * caller's query already bounds that field or the caller accepts losing the
 * items without it (`undated: 'exclude'`): a bounded query does not list
 * them, and no filter selects them, so only the unsliced list is exact.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FerryError } from './errors.js';
import {
  extentEdges,
  extentProbes,
  itemTime,
  keeps,
  noteProbe,
  notePage,
  pageExtent,
  pagesLeft,
  pageOrder,
  splitWindow,
  SPLITTABLE_IDS,
  wholeWindow,
  windowQuery,
  windowsAt,
  worthSplitting,
  type ListQuery,
  type ListWindow,
} from './list-windows.js';
import { RequestLimiter } from './request-limiter.js';
import type { ServiceResource } from './service-resources.js';

/** An item of a list, as JSON. */
export type ListItem = Record<string, unknown>;

/** One answer of a list endpoint, reduced to what paging needs. */
export interface ListAnswer {
  items: ListItem[];
  hasMore: boolean;
  nextCursor: string | null | undefined;
}

/**
 * A page as the reader yields it: the kept items (details when asked for),
 * how many vanished before their detail was read, and how many the service
 * listed again right after listing them (dropped: see ListWindow.lastIds).
 */
export interface SlicedPage {
  items: ListItem[];
  vanished: number;
  repeated: number;
}

export interface SlicedListOptions {
  resource: ServiceResource;
  /** Filters as the caller wants them; the reader adds `limit`, `cursor` and window bounds. */
  query: ListQuery;
  /**
   * GET one page of the list with this query (through the caller's
   * transport). `probe`: one of a round of one-item probes, all sent at once
   * and all needed before the read goes on: a transport that spreads
   * requests over the round trip should send it at once.
   */
  fetchPage: (query: ListQuery, signal: AbortSignal, probe: boolean) => Promise<ListAnswer>;
  /** An item's detail; undefined when it vanished. Absent: the list items are the result. */
  detail?: (item: ListItem, signal: AbortSignal) => Promise<ListItem | undefined>;
  /** Requests (pages and details) in flight at once. */
  concurrency: number;
  /** Requests started per second at most. */
  requestsPerSecond?: number;
  /** Split the list into windows: `auto` where exact, `off` for one chain. @default 'auto' */
  slices?: 'auto' | 'off';
  /** Items without the time field: `include` keeps the read exact for them (one chain where the field may be null). @default 'include' */
  undated?: 'include' | 'exclude';
  /** Items per page. @default 50 */
  pageSize?: number;
  signal?: AbortSignal;
  now?: () => number;
}

/** Pages read ahead of the consumer at most (each up to pageSize items). */
const READ_AHEAD_PAGES = 16;
/** Rounds of probes that bracket a long list's ends before it is cut: the first finds the bracket (≈ ×9), the second narrows it. */
const PROBE_ROUNDS = 2;
/** Windows planned per chain: more than one, so that chains finishing early take a fresh window instead of splitting one. */
const WINDOWS_PER_CHAIN = 2;
/** A window whose estimated pages left exceed this many chains' shares of all that is left is split even with no chain free. */
const LONG_WINDOW = 1.5;

/** Every item of a list, in pages, read by parallel windows where that is exact. */
export async function* readSlicedList(options: SlicedListOptions): AsyncGenerator<SlicedPage, void, undefined> {
  const reader = new SlicedReader(options);
  try {
    yield* reader.pages();
  } finally {
    reader.stop();
  }
}

/** Whether a read of this list with this query may be cut into time windows. */
export function canSlice(resource: ServiceResource, query: ListQuery, undated: 'include' | 'exclude' = 'include'): boolean {
  const filter = resource.window;
  if (!filter) return false;
  if (!filter.nullable || undated === 'exclude') return true;
  return query[filter.after] !== undefined || query[filter.before] !== undefined;
}

class SlicedReader {
  readonly #options: SlicedListOptions;
  readonly #limiter: RequestLimiter;
  readonly #stop = new AbortController();
  readonly #signal: AbortSignal;
  readonly #sliced: boolean;
  readonly #pageSize: number;
  readonly #now: () => number;
  /** Windows waiting for their next page. */
  readonly #queue: ListWindow[] = [];
  /** Windows not yet read to their end (queued or being read), for the estimate of what is left. */
  readonly #live = new Set<ListWindow>();
  /** Windows whose page is being fetched. */
  #active = 0;
  /** Pages produced (details pending or ready), not yet taken. */
  readonly #ready: Promise<SlicedPage>[] = [];
  #failure: unknown;
  /** Probes sent to plan the windows (requests that carry no item to the consumer). */
  probes = 0;
  /** Whether the windows were planned from probes (#plan). */
  #planned = false;
  #wake: (() => void) | undefined;

  constructor(options: SlicedListOptions) {
    this.#options = options;
    this.#limiter = new RequestLimiter(options.concurrency, options.requestsPerSecond);
    this.#signal = options.signal ? AbortSignal.any([options.signal, this.#stop.signal]) : this.#stop.signal;
    this.#sliced = options.slices !== 'off' && canSlice(options.resource, options.query, options.undated);
    this.#pageSize = options.pageSize ?? 50;
    this.#now = options.now ?? Date.now;
    this.#queue.push(wholeWindow(options.resource.window, options.query));
    this.#live.add(this.#queue[0]!);
  }

  stop(): void {
    this.#stop.abort(new Error('list read stopped'));
  }

  async *pages(): AsyncGenerator<SlicedPage, void, undefined> {
    const chains = this.#sliced ? Math.max(1, this.#options.concurrency) : 1;
    const workers = Array.from({ length: chains }, () => this.#work());
    const done = Promise.all(workers).then(() => undefined);
    done.catch(() => undefined);
    for (;;) {
      if (this.#failure !== undefined) throw this.#failure;
      const next = this.#ready.shift();
      if (next) {
        this.#notify();
        // The consumer's work on this page (shaping, writing) waits one turn of the event loop: the
        // answers already in first send their windows' next requests, so that work stays off the read's
        // critical path (docs/performance.md, stop 53).
        await nextTurn();
        yield await next;
        continue;
      }
      if (this.#queue.length === 0 && this.#active === 0) {
        await done;
        if (this.#failure !== undefined) throw this.#failure;
        if (this.#ready.length === 0) return;
        continue;
      }
      await this.#sleep();
    }
  }

  /** One chain worker: take a window, read its next page, put it back (or its parts), until no window is left. */
  async #work(): Promise<void> {
    try {
      for (;;) {
        this.#signal.throwIfAborted();
        while (this.#queue.length === 0 || this.#ready.length >= READ_AHEAD_PAGES) {
          if (this.#queue.length === 0 && this.#active === 0) return;
          await this.#sleep();
          this.#signal.throwIfAborted();
        }
        const window = this.#queue.shift()!;
        this.#active += 1;
        try {
          await this.#readPage(window);
        } finally {
          this.#active -= 1;
          this.#notify();
        }
      }
    } catch (error) {
      if (this.#failure === undefined && !this.#stop.signal.aborted) this.#failure = error;
      this.#stop.abort(error);
      this.#notify();
    }
  }

  async #readPage(window: ListWindow): Promise<void> {
    const { resource } = this.#options;
    const filter = resource.window;
    const query = { ...windowQuery(filter, window, this.#options.query), limit: this.#pageSize };
    const answer = await this.#limiter.run(() => this.#options.fetchPage(query, this.#signal, false), this.#signal);
    const kept: ListItem[] = [];
    const times: number[] = [];
    const ids = new Set<string>();
    let repeated = 0;
    for (const item of answer.items) {
      const id = String(item[resource.idField]);
      const time = filter ? itemTime(item, filter.field) : undefined;
      if (time !== undefined) times.push(time);
      if (!keeps(window, id, time)) continue;
      if (ids.has(id) || window.lastIds?.has(id) || window.own?.has(id)) {
        repeated += 1;
        continue;
      }
      ids.add(id);
      kept.push(item);
      if (window.own && time !== undefined) window.own.set(id, time);
    }
    if (window.own && window.own.size > SPLITTABLE_IDS) window.own = undefined;
    window.lastIds = ids;
    notePage(window, times);
    this.#emit(kept, repeated);
    if (!answer.hasMore) {
      this.#live.delete(window);
      return;
    }
    const next = answer.nextCursor;
    if (next === null || next === undefined || next === '' || next === window.cursor) {
      throw new FerryError('FERRY_SERVICE_ERROR', `GET ${resource.path}: the service said hasMore but gave no new nextCursor`, { details: { path: resource.path } });
    }
    const first = this.#sliced && window.whole && window.pages === 1 && times.length > 0;
    const parts = first ? await this.#plan(window, times) : this.#sliced && window.own ? this.#split(window, times) : [];
    if (first && parts.length > 0) {
      this.#live.delete(window);
      for (const part of parts) this.#live.add(part);
    }
    if (parts.length > 0) {
      this.#queue.push(...parts);
      return;
    }
    window.cursor = next;
    // A window read on keeps its place ahead of fresh ones: the oldest chains finish first.
    this.#queue.unshift(window);
  }

  /**
   * The windows the whole list is read in, planned once its first page shows
   * it is long: up to PROBE_ROUNDS rounds of `concurrency` probes (one item
   * each, all at once) bracket where its dated items begin and end, and the
   * span between is cut into WINDOWS_PER_CHAIN × concurrency windows of
   * equal span, with tails out to the list's bounds. Every chain starts on a
   * window of its own at once; where the items are unevenly spread, windows
   * still long are split again as chains come free (#split).
   */
  async #plan(window: ListWindow, times: readonly number[]): Promise<ListWindow[]> {
    const filter = this.#options.resource.window!;
    const extent = pageExtent(window, times);
    const lean = pageOrder(times);
    // A page in time order is a run of the list: its span is how far a page reaches, the step probes
    // start at and the precision they stop at. A page in no time order is more likely a sample of the
    // whole list, whose ends lie about one gap between its items from the list's: probes stepping by
    // its whole span left brackets as wide as the list, and windows a third of them empty (stop 54).
    const span = Math.max(1, extent.high - extent.low) / (lean === undefined ? Math.max(1, times.length - 1) : 1);
    const count = Math.max(2, this.#options.concurrency);
    /** Thresholds of probes that found nothing: up (nothing at or after), down (nothing before). */
    const emptyFrom = new Set<number>();
    const emptyTo = new Set<number>();
    for (let round = 0; round < PROBE_ROUNDS; round++) {
      const probes = extentProbes(extent, span, count, lean, this.#now());
      if (probes.length === 0) break;
      const found = await Promise.all(
        probes.map(async (probe) => {
          const bounds = probe.side === 'up' ? { lo: probe.at, hi: window.hi } : { lo: window.lo, hi: probe.at };
          const query = { ...windowQuery(filter, { ...bounds, whole: false, inherited: new Map(), own: undefined, cursor: undefined }, this.#options.query), limit: 1 };
          const answer = await this.#limiter.run(() => this.#options.fetchPage(query, this.#signal, true), this.#signal);
          this.probes += 1;
          const item = answer.items[0];
          return item === undefined ? undefined : (itemTime(item, filter.field) ?? probe.at);
        }),
      );
      probes.forEach((probe, index) => {
        noteProbe(extent, probe, found[index]);
        if (found[index] === undefined) (probe.side === 'up' ? emptyFrom : emptyTo).add(probe.at);
      });
    }
    this.#planned = true;
    // A probe that found nothing was a complete read of its range ([lo, at) down, [at, hi) up, the same query as that window's): the outermost windows it covers are not read again.
    return windowsAt(window, extentEdges(window, extent, WINDOWS_PER_CHAIN * count, lean === undefined ? times : undefined)).filter(
      (part) => !((part.lo === window.lo && part.hi !== undefined && emptyTo.has(part.hi)) || (part.hi === window.hi && part.lo !== undefined && emptyFrom.has(part.lo))),
    );
  }

  /**
   * The windows to read instead of this one, or none. Before windows were
   * planned, a window that proves long on its first page is split even with
   * no chain free (into two), so that chains finishing later find work
   * queued. A window whose pagesLeft exceed LONG_WINDOW shares of what is
   * left is cut into about as many shares, queued for chains as they come
   * free. Otherwise it is split only into free chains. Either only while
   * worthSplitting says re-reading its pages pays.
   */
  #split(window: ListWindow, times: readonly number[]): ListWindow[] {
    const now = this.#now();
    const concurrency = this.#options.concurrency;
    const spare = this.#spareChains();
    const first = (window.pages ?? 1) <= 1;
    const left = pagesLeft(window, times, now);
    window.left = left;
    // Planned windows are already queued for every chain: they split only into chains that are free…
    let parts = spare >= 2 ? spare : first && !this.#planned && this.#queue.length < concurrency ? 2 : 0;
    // …or when this one holds far more than a chain's share of what is left: its pieces are queued for chains as they come free.
    const share = this.#shareLeft();
    if (left !== undefined && share !== undefined && left > LONG_WINDOW * share && left >= 4) {
      parts = Math.max(parts, Math.min(concurrency, Math.round(((window.pages ?? 1) + left) / share)));
    }
    if (parts < 2 || !worthSplitting(window, times, parts, now)) return [];
    const children = splitWindow(window, parts, times, now);
    if (children.length > 0) this.#live.delete(window);
    for (const child of children) this.#live.add(child);
    return children;
  }

  /** The pages left per chain, as far as the windows' estimates tell (a window not yet read is taken to hold what the read ones did). */
  #shareLeft(): number | undefined {
    let known = 0;
    let total = 0;
    let read = 0;
    for (const live of this.#live) {
      if (live.left === undefined) continue;
      known += 1;
      total += live.left;
      read += live.pages ?? 0;
    }
    if (known === 0) return undefined;
    const unread = this.#live.size - known;
    return (total + (unread * (total + read)) / known) / this.#options.concurrency;
  }

  /** Chains a split could start now: the configured ones not busy with a window. */
  #spareChains(): number {
    return this.#options.concurrency - this.#queue.length - this.#active + 1;
  }

  #emit(items: ListItem[], repeated: number): void {
    const detail = this.#options.detail;
    if (!detail || items.length === 0) {
      if (items.length > 0 || repeated > 0) this.#ready.push(Promise.resolve({ items, vanished: 0, repeated }));
      this.#notify();
      return;
    }
    const page = Promise.all(items.map((item) => this.#limiter.run(() => detail(item, this.#signal), this.#signal))).then((details) => {
      const found = details.filter((item): item is ListItem => item !== undefined);
      return { items: found, vanished: details.length - found.length, repeated };
    });
    page.catch(() => undefined);
    this.#ready.push(page);
    this.#notify();
  }

  #sleep(): Promise<void> {
    return new Promise((resolve) => {
      const previous = this.#wake;
      this.#wake = () => {
        previous?.();
        resolve();
      };
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
