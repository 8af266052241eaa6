import { describe, expect, it } from 'vitest';
import { extentProbes, noteProbe, pageExtent } from '../../../src/sdk/list-windows.js';

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
