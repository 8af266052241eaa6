import { describe, expect, it } from 'vitest';
import { extentEdges, extentProbes, keeps, noteProbe, notePage, pageExtent, pagesLeft, splitWindow, type ListWindow } from '../../../src/sdk/list-windows.js';

const HOUR = 3_600_000;
const BASE = Date.UTC(2025, 0, 1);

describe('extentProbes', () => {
  it('reaches up to the clock, and once beyond it, on a side with no bracket yet', () => {
    const extent = pageExtent({ lo: undefined, hi: undefined }, [BASE, BASE + 8 * HOUR]);
    const now = BASE + 700 * 24 * HOUR;
    const probes = extentProbes(extent, 8 * HOUR, 8, 'up', now);
    const up = probes.filter((probe) => probe.side === 'up').map((probe) => probe.at);
    expect(up).toHaveLength(7);
    expect(probes.filter((probe) => probe.side === 'down')).toHaveLength(1);
    expect(up.slice(0, -1).every((at) => at <= now + 1)).toBe(true);
    expect(up.at(-1)!).toBeGreaterThan(now);
    // Rising geometrically: each step a few times the last.
    for (let i = 1; i < up.length - 1; i++) expect(up[i]! - BASE).toBeGreaterThan(2 * (up[i - 1]! - BASE));
  });

  it('places the next round geometrically inside the bracket, measured from the first page', () => {
    const extent = pageExtent({ lo: undefined, hi: undefined }, [BASE, BASE + HOUR]);
    noteProbe(extent, { side: 'up', at: BASE + 100 * HOUR }, BASE + 100 * HOUR);
    noteProbe(extent, { side: 'up', at: BASE + 1000 * HOUR }, undefined);
    noteProbe(extent, { side: 'down', at: BASE - 2 * HOUR }, undefined);
    const up = extentProbes(extent, HOUR, 8, 'up').map((probe) => probe.at - BASE);
    expect(up.length).toBeGreaterThan(4);
    expect(up.every((at) => at > 100 * HOUR && at < 1000 * HOUR)).toBe(true);
    // Denser near the found end than near the empty one.
    expect(up[1]! - up[0]!).toBeLessThan(up.at(-1)! - up.at(-2)!);
  });
});

describe('extentEdges', () => {
  const extent = { low: BASE, high: BASE + 100 * HOUR - 1, emptyBelow: undefined, emptyAbove: undefined };
  const inner = (edges: number[]) => edges.filter((edge) => edge > BASE && edge < BASE + 100 * HOUR);

  it('cuts equal spans, also for a sample spread about evenly', () => {
    const even = Array.from({ length: 50 }, (_, i) => BASE + i * 2 * HOUR);
    const expected = Array.from({ length: 9 }, (_, i) => BASE + (i + 1) * 10 * HOUR);
    expect(inner(extentEdges({ lo: undefined, hi: undefined }, extent, 10))).toEqual(expected);
    expect(inner(extentEdges({ lo: undefined, hi: undefined }, extent, 10, even))).toEqual(expected);
  });

  it('cuts a sample that equal spans would leave in one window at its quantiles', () => {
    // 40 of 50 items within the first hour of 100: equal spans put them all in the first of ten windows.
    const burst = [...Array.from({ length: 40 }, (_, i) => BASE + i * 60_000), ...Array.from({ length: 10 }, (_, i) => BASE + (i + 1) * 9 * HOUR)];
    const edges = inner(extentEdges({ lo: undefined, hi: undefined }, extent, 10, burst));
    expect(edges).toHaveLength(9);
    expect(edges.filter((edge) => edge < BASE + HOUR).length).toBeGreaterThanOrEqual(7);
  });
});

describe('splitWindow', () => {
  const window = (lo: number, hi: number): ListWindow => ({ lo, hi, whole: false, inherited: new Map(), own: new Map(), cursor: undefined });

  it('cuts out the one instant every item seen sits on, and hands each emitted id to the child that owns its time', () => {
    const parent = window(BASE, BASE + HOUR);
    const t = BASE + 1000;
    parent.own!.set('a', t).set('b', t);
    parent.own!.set('edge', BASE);
    const children = splitWindow(parent, 8, [t, t, t], BASE + 1000 * HOUR);
    expect(children.map((child) => [child.lo, child.hi])).toEqual([
      [BASE, t],
      [t, t + 1],
      [t + 1, BASE + HOUR],
    ]);
    expect([...children[1]!.inherited.keys()]).toEqual(['a', 'b']);
    expect([...children[0]!.inherited.keys()]).toEqual(['edge']);
    // The instant's window is one millisecond: it is never split again.
    expect(splitWindow(children[1]!, 8, [t, t], BASE + 1000 * HOUR)).toEqual([]);
    // An item on the instant belongs to that window alone; the ones emitted before the split are skipped there.
    expect(children.filter((child) => keeps(child, 'c', t)).length).toBe(1);
    expect(children.some((child) => keeps(child, 'a', t))).toBe(false);
  });
});

describe('pagesLeft', () => {
  it('estimates a window read in time order from the span its pages covered, and says nothing of unordered pages', () => {
    const w: ListWindow = { lo: BASE, hi: BASE + 100 * HOUR, whole: false, inherited: new Map(), own: new Map(), cursor: undefined };
    const page = Array.from({ length: 50 }, (_, i) => BASE + Math.round((i * HOUR) / 50));
    notePage(w, page);
    expect(pagesLeft(w, page, BASE)).toBeCloseTo(99 / 0.98, 0);
    const shuffled = [page[3]!, page[1]!, page[40]!, page[7]!];
    expect(pagesLeft(w, shuffled, BASE)).toBeUndefined();
  });
});
