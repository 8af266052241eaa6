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
  /**
   * Ids on the window's last page. The service may list a record again on the
   * next page (records with one creation time at a page boundary, or added
   * while the list is paged: the spec's pagination rules): such a repeat is
   * dropped and counted, never emitted twice.
   */
  lastIds?: ReadonlySet<string>;
  /** Pages read so far, and the span of times they held (for the estimate of what is left). */
  pages?: number;
  seenMin?: number;
  seenMax?: number;
  /** Pages still to read, as estimated after the last page (pagesLeft); undefined: not known. */
  left?: number | undefined;
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
  return windowsAt(window, splitEdges(window, Math.max(2, parts), times, now));
}

/**
 * The windows that replace `window`, cut at `edges` (strictly increasing,
 * strictly inside it); each child inherits the ids the window emitted in its
 * range. Empty when there is no edge.
 */
export function windowsAt(window: ListWindow, edges: readonly number[]): ListWindow[] {
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
  // Every item seen on one instant: cut that millisecond out, a window of its own that is never split again, whatever the parts.
  if (seen && min === max) {
    return [min, min + 1].filter((edge) => (window.lo === undefined || edge > window.lo) && (window.hi === undefined || edge < window.hi));
  }
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

/**
 * Whether windows cut at `edges` hold a sample about evenly: none holds more
 * than three times its share and three more. A sample of 50 items cut in 16
 * leaves about three in each, give or take two: quantiles of so few items
 * make windows of uneven size where the items are spread evenly (on a
 * virtual clock 29 round trips became 55), and windows of a list in no time
 * order are not split again (nothing tells what one has left); where most
 * items sit in a few windows, only quantiles spread them (docs/performance.md).
 */
function evenSpans(sample: readonly number[], edges: readonly number[]): boolean {
  const counts = new Array<number>(edges.length + 1).fill(0);
  for (const time of sample) {
    let index = 0;
    while (index < edges.length && time >= edges[index]!) index++;
    counts[index]! += 1;
  }
  const share = sample.length / counts.length;
  return Math.max(...counts) <= 3 * share + 3;
}

/** `parts − 1` edges at the quantiles of `sample`: each window holds about as many of its items. */
function quantiles(sample: readonly number[], parts: number): number[] {
  const sorted = [...sample].sort((a, b) => a - b);
  return Array.from({ length: parts - 1 }, (_, i) => sorted[Math.floor((sorted.length * (i + 1)) / parts)]!);
}

function boundOf(value: string | number | boolean | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms);
}

/**
 * The pages a window still has to read, estimated from what it read: where
 * the pages come ordered by time (this page's times are monotonic), the span
 * read so far against the span left (a window open upward is taken to end at
 * the clock, or where it began past it); undefined where nothing tells.
 */
export function pagesLeft(window: ListWindow, pageTimes: readonly number[], now: number): number | undefined {
  const pages = window.pages ?? 1;
  if (window.seenMin === undefined || window.seenMax === undefined || !monotonic(pageTimes)) return undefined;
  const rising = pageTimes[pageTimes.length - 1]! > pageTimes[0]!;
  const lo = window.lo ?? (rising ? undefined : window.seenMin);
  const hi = window.hi ?? (rising ? Math.max(now, window.seenMax + 1) : undefined);
  if (lo === undefined || hi === undefined) return undefined;
  const covered = Math.max(1, window.seenMax - window.seenMin);
  return (pages * Math.max(0, hi - lo - covered)) / covered;
}

/**
 * Whether splitting the window now into `parts` is likely to pay. A split
 * drops the window's cursor, so its children read again every page it has
 * read (and skip their items): splitting after the first page costs one
 * page, after the tenth ten. Where pagesLeft can tell, the split is made when
 * re-reading plus the rest spread over `parts` chains beats reading the rest
 * on this one. Otherwise nothing tells what is left, and only a window that
 * has read at most two pages is split.
 */
export function worthSplitting(window: ListWindow, pageTimes: readonly number[], parts: number, now = Date.now()): boolean {
  const pages = window.pages ?? 1;
  if (pages <= 1) return true;
  const left = pagesLeft(window, pageTimes, now);
  if (left !== undefined) return (pages + left) / parts + 1 < left;
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

/**
 * Where a list's dated items lie, as far as probes found: items exist at
 * `low` and at `high`; none below `emptyBelow`, none at or above
 * `emptyAbove` (undefined: not known; a window's own bounds start them). A
 * probe asks for one item past a threshold; a few rounds of them bracket the
 * two ends of a list before it is cut into windows, so that the windows hold
 * the items evenly from the start instead of being found by splitting.
 */
export interface ListExtent {
  low: number;
  high: number;
  emptyBelow: number | undefined;
  emptyAbove: number | undefined;
  /** The first page's ends, from which probes measure their distances. */
  originLow?: number;
  originHigh?: number;
}

/** One existence probe: is there an item with time ≥ `at` (side `up`) or < `at` (side `down`)? */
export interface ExtentProbe {
  side: 'up' | 'down';
  at: number;
}

/** The extent known from a window's first page (times `low`…`high`) and the window's own bounds. */
export function pageExtent(window: Pick<ListWindow, 'lo' | 'hi'>, times: readonly number[]): ListExtent {
  let low = Infinity;
  let high = -Infinity;
  for (const time of times) {
    if (time < low) low = time;
    if (time > high) high = time;
  }
  return { low, high, emptyBelow: window.lo, emptyAbove: window.hi, originLow: low, originHigh: high + 1 };
}

/** An unbracketed side is probed this far past its known end at most, in spans of the first page (≈ pages), beyond the clock's reach. */
const PROBE_REACH = 1_000_000;

/**
 * The next round of `count` probes over the sides whose end is not yet
 * found to within `settled` (about two pages' span): an unbracketed side
 * gets thresholds growing geometrically from its known end (2 spans, then
 * up to PROBE_REACH), a bracketed one thresholds inside its bracket, at
 * distances from the first page's end growing geometrically from the last
 * item found to the first empty probe (the end is as likely ×1.3 past the
 * one as the other: even steps left most probes of a wide bracket empty).
 * `lean` is the side the first page says the rest of the list lies on (a
 * page in rising order starts the list at its oldest): it gets all probes
 * but one, which checks the other side close by.
 *
 * With `now`, an unbracketed side's thresholds stop at the clock (up: the
 * list's times are rarely in the future; down: at the epoch), all but the
 * last, which looks beyond it: the bracket the first round finds is then a
 * few times narrower than one reaching PROBE_REACH, and a list that does
 * reach past the clock is bracketed by the next round.
 */
export function extentProbes(extent: ListExtent, span: number, count: number, lean: 'up' | 'down' | undefined, now?: number): ExtentProbe[] {
  const unit = Math.max(span, 1);
  const open = (known: number, empty: number | undefined) => empty === undefined || Math.abs(empty - known) > 2 * unit;
  const needUp = open(extent.high + 1, extent.emptyAbove);
  const needDown = open(extent.low, extent.emptyBelow);
  if (!needUp && !needDown) return [];
  let up = needUp ? (needDown ? Math.ceil(count / 2) : count) : 0;
  if (needUp && needDown && lean !== undefined && count > 1) up = lean === 'up' ? count - 1 : 1;
  const probes: ExtentProbe[] = [];
  const place = (side: 'up' | 'down', n: number) => {
    const known = side === 'up' ? extent.high + 1 : extent.low;
    const empty = side === 'up' ? extent.emptyAbove : extent.emptyBelow;
    const sign = side === 'up' ? 1 : -1;
    // How far the clock (up) or the epoch (down) lies from the known end, when that is well past the first step.
    const clock = now === undefined ? undefined : side === 'up' ? now - known : known;
    const bounded = clock !== undefined && clock > 8 * unit && n > 2 ? clock : undefined;
    const origin = side === 'up' ? (extent.originHigh ?? known) : (extent.originLow ?? known);
    const past = Math.abs(known - origin);
    const near = Math.max(2 * unit, past);
    const far = empty === undefined ? 0 : Math.abs(empty - origin);
    for (let i = 0; i < n; i++) {
      const distance =
        empty !== undefined
          ? Math.max(0, near * Math.pow(far / near, (i + 1) / (n + 1)) - past)
          : bounded !== undefined
            ? i < n - 1
              ? 2 * unit * Math.pow(bounded / (2 * unit), i / (n - 2))
              : 2 * bounded
            : 2 * unit * Math.pow(PROBE_REACH / 2, n === 1 ? 0 : i / (n - 1));
      const at = known + sign * Math.max(1, Math.round(distance));
      if (!Number.isFinite(at) || Math.abs(at) > 8.64e15) continue;
      if (empty !== undefined && (side === 'up' ? at >= empty : at <= empty)) continue;
      probes.push({ side, at });
    }
  };
  place('up', up);
  place('down', needDown ? count - up : 0);
  return probes;
}

/** Fold a probe's answer into the extent: the time of the item it found, or undefined when it found none. */
export function noteProbe(extent: ListExtent, probe: ExtentProbe, found: number | undefined): void {
  if (probe.side === 'up') {
    if (found === undefined) extent.emptyAbove = Math.min(extent.emptyAbove ?? Infinity, probe.at);
    else extent.high = Math.max(extent.high, found);
  } else if (found === undefined) {
    extent.emptyBelow = Math.max(extent.emptyBelow ?? -Infinity, probe.at);
  } else {
    extent.low = Math.min(extent.low, found);
  }
}

/**
 * Edges that cut `window` into `parts` windows over the extent (each end
 * placed halfway into its bracket), plus tails from there to the bracket's
 * empty end and beyond: exact whatever the estimate, since the windows
 * together still cover all of `window`. The windows are of equal span; given
 * `sample` (the times of a first page in no time order, likely a sample of
 * the whole list) that equal spans would leave far from even, they are cut
 * at the sample's quantiles instead (see evenSpans).
 */
export function extentEdges(window: Pick<ListWindow, 'lo' | 'hi'>, extent: ListExtent, parts: number, sample?: readonly number[]): number[] {
  const { low, high, emptyBelow, emptyAbove } = extent;
  const from = emptyBelow === undefined ? low : Math.floor((low + emptyBelow) / 2);
  const to = emptyAbove === undefined ? high + 1 : Math.ceil((high + 1 + emptyAbove) / 2);
  const edges = [from, to];
  if (emptyBelow !== undefined) edges.push(emptyBelow);
  if (emptyAbove !== undefined) edges.push(emptyAbove);
  const span = Math.max(to - from, 1);
  const even = Array.from({ length: parts - 1 }, (_, i) => from + Math.floor((span * (i + 1)) / parts));
  edges.push(...(sample === undefined || evenSpans(sample, even) ? even : quantiles(sample, parts)));
  const sorted = [...new Set(edges)].sort((a, b) => a - b);
  return sorted.filter((edge) => (window.lo === undefined || edge > window.lo) && (window.hi === undefined || edge < window.hi));
}

/** The order one page's times came in: rising, falling, or neither (too few to tell). */
export function pageOrder(times: readonly number[]): 'up' | 'down' | undefined {
  if (!monotonic(times)) return undefined;
  return times[times.length - 1]! >= times[0]! ? 'up' : 'down';
}
