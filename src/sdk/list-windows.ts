/**
 * Time windows over a list endpoint, for reading one list as many cursor
 * chains at once. A window owns the items whose time field falls in
 * [lo, hi) (epoch milliseconds, either end open); its query asks a little
 * more than that and the reader keeps only what the window owns, so an item
 * sitting exactly on an edge is read by one window whether the service's
 * bounds are inclusive or exclusive:
 *
 *   query  after = lo − 1 ms, before = hi   (exclusive: t > lo − 1 ⇒ t ≥ lo; inclusive adds t ∈ [lo − 1, lo), dropped)
 *   keep   lo ≤ floor(t) < hi               (t = hi is the next window's: its query starts at hi − 1)
 *
 * This assumes the service compares bounds at millisecond precision or finer,
 * as ISO 8601 with milliseconds (the spec's timestamps, the emulator) does.
 *
 * A window split after it has emitted items hands the ids of those items to
 * the child windows that own them, which skip them: nothing is doubled.
 */
import type { TimeWindowFilter } from './service-resources.js';

export type ListQuery = Readonly<Record<string, string | number | boolean>>;

export interface ListWindow {
  /** Inclusive lower bound, epoch ms; undefined: open. */
  readonly lo: number | undefined;
  /** Exclusive upper bound, epoch ms; undefined: open. */
  readonly hi: number | undefined;
  /**
   * The caller's whole query, not yet sliced: it keeps the items without
   * the time field the service lists (an unbounded query lists them), and
   * its bounds, if the caller set any, are the caller's, taken inclusively.
   */
  readonly whole: boolean;
  /** Ids (→ time) emitted by the window this one was split from, inside this one's range. */
  readonly inherited: ReadonlyMap<string, number>;
  /** Ids (→ time) this window emitted, kept while it may still be split. */
  own: Map<string, number> | undefined;
  cursor: string | undefined;
  /** Pages read so far, and the span of times they held (for the estimate of what is left). */
  pages?: number;
  seenMin?: number;
  seenMax?: number;
}

/** A window whose own emitted ids past this many are no longer kept; it is then read to its end. */
export const SPLITTABLE_IDS = 5000;

/** The time of an item as epoch ms (floored), or undefined when it has none. */
export function itemTime(item: Readonly<Record<string, unknown>>, field: string): number | undefined {
  const raw = item[field];
  if (typeof raw !== 'string' || raw === '') return undefined;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? undefined : Math.floor(ms);
}

/** The whole list as one window, bounded (inclusively) by whatever bounds the caller's query sets. */
export function wholeWindow(filter: TimeWindowFilter | undefined, query: ListQuery): ListWindow {
  const lo = filter ? boundOf(query[filter.after]) : undefined;
  const hi = filter ? boundOf(query[filter.before]) : undefined;
  return { lo, hi: hi === undefined ? undefined : hi + 1, whole: true, inherited: new Map(), own: new Map(), cursor: undefined };
}

/** The query of a window's next page. */
export function windowQuery(filter: TimeWindowFilter | undefined, window: ListWindow, query: ListQuery): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = { ...query };
  if (filter) {
    delete out[filter.after];
    delete out[filter.before];
    if (window.lo !== undefined) out[filter.after] = new Date(window.lo - 1).toISOString();
    if (window.hi !== undefined) out[filter.before] = new Date(window.hi).toISOString();
  }
  if (window.cursor !== undefined) out.cursor = window.cursor;
  return out;
}

/** Whether the window keeps an item it was given: it owns the item's time and did not inherit the id. */
export function keeps(window: ListWindow, id: string, time: number | undefined): boolean {
  if (time === undefined) return window.whole;
  if (window.lo !== undefined && time < window.lo) return false;
  if (window.hi !== undefined && time >= window.hi) return false;
  return !window.inherited.has(id);
}

/**
 * The windows that replace `window`, about `parts` of them, placed by the
 * times seen so far (`times`, from the window's first pages) and `now`:
 * an open end reaches past what was seen, a closed range is cut evenly.
 * Empty when the window cannot be split (one millisecond wide, nothing dated seen).
 */
export function splitWindow(window: ListWindow, parts: number, times: readonly number[], now: number): ListWindow[] {
  const edges = splitEdges(window, Math.max(2, parts), times, now);
  if (edges.length === 0) return [];
  const emitted = new Map([...window.inherited, ...(window.own ?? [])]);
  const bounds: [number | undefined, number | undefined][] = [];
  let lo = window.lo;
  for (const edge of edges) {
    bounds.push([lo, edge]);
    lo = edge;
  }
  bounds.push([lo, window.hi]);
  return bounds.map(([childLo, childHi]) => {
    const inherited = new Map<string, number>();
    for (const [id, time] of emitted) {
      if ((childLo === undefined || time >= childLo) && (childHi === undefined || time < childHi)) inherited.set(id, time);
    }
    return { lo: childLo, hi: childHi, whole: false, inherited, own: new Map(), cursor: undefined };
  });
}

/** Inner edges, strictly increasing, strictly inside the window. */
function splitEdges(window: ListWindow, parts: number, times: readonly number[], now: number): number[] {
  let min = Infinity;
  let max = -Infinity;
  for (const time of times) {
    if (time < min) min = time;
    if (time > max) max = time;
  }
  const seen = times.length > 0;
  let from = window.lo;
  let to = window.hi;
  const edges: number[] = [];
  // An open end is closed a little past what was seen; what lies beyond stays an open window, split again when it proves long.
  if (from === undefined) {
    if (!seen) return [];
    const reach = Math.max((to ?? Math.max(max, now)) - min, 60_000);
    from = min - reach;
    edges.push(from);
  }
  let openHigh = false;
  if (to === undefined) {
    if (!seen && from === undefined) return [];
    const top = Math.max(max, now, from + 60_000);
    to = top + Math.max(top - Math.max(from, seen ? min : from), 60_000);
    openHigh = true;
  }
  const inner = Math.max(1, parts - edges.length - (openHigh ? 1 : 0));
  const span = to - from;
  for (let i = 1; i < inner; i++) edges.push(from + Math.floor((span * i) / inner));
  if (openHigh) edges.push(to);
  const sorted = [...new Set(edges)].sort((a, b) => a - b);
  return sorted.filter((edge) => (window.lo === undefined || edge > window.lo) && (window.hi === undefined || edge < window.hi));
}

function boundOf(value: string | number | boolean | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms);
}

/**
 * Whether splitting the window now is likely to pay. A split drops the
 * window's cursor, so its children read again every page it has read (and
 * skip their items): splitting after the first page costs one page, after
 * the tenth ten. Where the pages come ordered by time (this page's times are
 * monotonic) the span read so far estimates the pages left in a closed
 * window, and the split is made when re-reading plus the rest spread over
 * `parts` chains beats reading the rest on this one. Otherwise nothing tells
 * what is left, and only a window that has read at most two pages is split.
 */
export function worthSplitting(window: ListWindow, pageTimes: readonly number[], parts: number): boolean {
  const pages = window.pages ?? 1;
  if (pages <= 1) return true;
  if (window.lo !== undefined && window.hi !== undefined && window.seenMin !== undefined && window.seenMax !== undefined && monotonic(pageTimes)) {
    const covered = Math.max(1, window.seenMax - window.seenMin);
    const left = (pages * Math.max(0, window.hi - window.lo - covered)) / covered;
    return (pages + left) / parts + 1 < left;
  }
  return pages <= 2;
}

/** Note a page's times on the window. */
export function notePage(window: ListWindow, pageTimes: readonly number[]): void {
  window.pages = (window.pages ?? 0) + 1;
  for (const time of pageTimes) {
    if (window.seenMin === undefined || time < window.seenMin) window.seenMin = time;
    if (window.seenMax === undefined || time > window.seenMax) window.seenMax = time;
  }
}

function monotonic(times: readonly number[]): boolean {
  let up = true;
  let down = true;
  for (let i = 1; i < times.length; i++) {
    if (times[i]! < times[i - 1]!) up = false;
    if (times[i]! > times[i - 1]!) down = false;
  }
  return times.length > 1 && (up || down);
}
