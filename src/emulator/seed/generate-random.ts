/**
 * Deterministic randomness for the seed generator. Each generated item gets
 * its own stream derived from the RNG seed and the item's identity, so
 * changing a limit or the order of the inputs never changes other items.
 */
import { createHash } from 'node:crypto';

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  pick<T>(list: readonly T[]): T;
  /** `count` distinct elements, in the list's order. */
  sample<T>(list: readonly T[], count: number): T[];
}

const DAY_MS = 86_400_000;

/** mulberry32: tiny, fast and good enough for demo data. */
function mulberry32(state: number): () => number {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The random stream of one item: the same seed and parts always give the same sequence. */
export function rngFor(seed: number, ...parts: readonly string[]): Rng {
  const digest = createHash('sha256').update(JSON.stringify([seed, ...parts])).digest();
  const next = mulberry32(digest.readUInt32LE(0));
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(list: readonly T[]): T => {
      if (list.length === 0) throw new Error('pick from an empty list');
      return list[int(0, list.length - 1)] as T;
    },
    sample: <T>(list: readonly T[], count: number): T[] => {
      const chosen = new Set<number>();
      const n = Math.min(count, list.length);
      while (chosen.size < n) chosen.add(int(0, list.length - 1));
      return [...chosen].sort((x, y) => x - y).map((i) => list[i] as T);
    },
  };
}

/** Midnight UTC of a `YYYY-MM-DD` date, in epoch ms (NaN when blank or malformed). */
export const dayMs = (date: string): number => (/^\d{4}-\d{2}-\d{2}$/.test(date.trim()) ? Date.parse(`${date.trim()}T00:00:00Z`) : Number.NaN);

/** A time during office hours (08:00–17:59 UTC) of the day that starts at `dayStartMs`. */
export const officeHour = (rng: Rng, dayStartMs: number): number =>
  dayStartMs + rng.int(8, 17) * 3_600_000 + rng.int(0, 59) * 60_000;

export const addDays = (ms: number, days: number): number => ms + days * DAY_MS;

export const iso = (ms: number): string => new Date(ms).toISOString();
