/**
 * Cuts a run's synchronous work (reading, mapping, building a batch) into
 * short slices of the event loop, so that answers from the service are read
 * and the requests that follow them are written between slices.
 *
 * Why time and not a count of units: undici writes a request on a kept-alive
 * connection only in the event loop's check phase (it first makes sure the
 * idle socket is still good, GHSA-35p6-xmwp-9g52), so every request sent
 * while a batch is prepared waits for the slice running then. A count of
 * units makes that wait as long as the units are slow (cold code early in a
 * run, wide records, a machine shared with other work), and request slots sit
 * empty at the service meanwhile. Without it (the plain path) a batch would
 * be prepared in one go; behaviour is the same either way, only the time at
 * which requests are written differs. Figures: docs/performance.md.
 */

/** How long a slice may run before the loop gets a turn. */
export const SLICE_MS = 0.5;

/**
 * A turn waits for two check phases, not one. Answers read in the poll phase
 * free request slots, and undici queues the writes of the requests that take
 * them for the check phase, behind the immediate that would resume the
 * slice: with one immediate the next slice ran first, and every request
 * freed by an answer waited up to a slice before it was written. With two,
 * the first immediate re-queues itself behind those writes.
 */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

export class LoopSlices {
  private startedAt: number;

  constructor(
    private readonly sliceMs: number = SLICE_MS,
    private readonly now: () => number = () => performance.now(),
    private readonly turn: () => Promise<void> = nextTurn,
  ) {
    this.startedAt = now();
  }

  /**
   * Undefined while the current slice lasts (no promise: it is called once
   * per unit); once it is spent, a promise that resolves after the event loop
   * had its turn, and a new slice starts.
   */
  due(): Promise<void> | undefined {
    if (this.now() - this.startedAt < this.sliceMs) return undefined;
    return this.turn().then(() => {
      this.startedAt = this.now();
    });
  }
}
