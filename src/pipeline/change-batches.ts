/**
 * Batches of a change source's units ({@link SourceDefinition.changes}).
 * Two rules the ordinary batching has no need for:
 *
 * - No record identity twice in a batch: the batch is cut before a unit
 *   whose key it already holds, so the later change of a record is looked
 *   up and pushed only after the earlier one landed (the run drains between
 *   batches). Concurrent pushes of two versions of one record could land in
 *   either order, and a ledger look taken before the first landed would
 *   judge the second against a stale body.
 * - A batch does not wait for more units while the source has none at hand:
 *   a change stream at rest would otherwise hold its last changes back until
 *   255 more came. Waiting with an empty batch lets the run checkpoint (see
 *   {@link Checkpointer.idle}).
 *
 * @see SourceDefinition.changes (src/sdk/types.ts)
 */
import type { Unit } from './units.js';

/** Units already read (target setup's sample) cut into runs without a repeated key, in order. */
export function splitAtRepeatedKeys<T extends { unit: Unit }>(items: readonly T[], max: number): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let keys = new Set<string>();
  for (const item of items) {
    const key = item.unit.originKey;
    if (run.length >= max || (key !== undefined && keys.has(key))) {
      runs.push(run);
      run = [];
      keys = new Set();
    }
    run.push(item);
    if (key !== undefined) keys.add(key);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** How long a batch with units in it waits for the next one before it is handed on. */
export const CHANGE_BATCH_WAIT_MS = 20;

const IDLE = Symbol('idle');

export class ChangeBatches {
  private pending: Promise<Unit | undefined> | undefined;
  private carry: Unit | undefined;
  private tick: Promise<typeof IDLE> | undefined;
  private ended = false;

  constructor(private readonly next: () => Promise<Unit | undefined>) {}

  /**
   * Up to `max` units with distinct keys, and whether the source ended.
   * `onIdle` runs each time the source has kept the caller waiting with an
   * empty batch for {@link CHANGE_BATCH_WAIT_MS}; `stopping` ends the wait
   * with an empty batch.
   */
  async read(max: number, onIdle: () => Promise<void> | undefined, stopping: () => boolean): Promise<{ batch: Unit[]; ended: boolean }> {
    const batch: Unit[] = [];
    const keys = new Set<string>();
    if (this.carry) {
      this.add(this.carry, batch, keys);
      this.carry = undefined;
    }
    if (this.ended) return { batch, ended: true };
    while (batch.length < max) {
      const pending = (this.pending ??= this.next());
      const got = await Promise.race([pending, this.idleTick()]);
      if (got === IDLE) {
        if (batch.length > 0) return { batch, ended: false };
        await onIdle();
        if (stopping()) return { batch, ended: false };
        continue;
      }
      this.pending = undefined;
      if (got === undefined) return { batch, ended: true };
      if (got.originKey !== undefined && keys.has(got.originKey)) {
        this.carry = got;
        return { batch, ended: false };
      }
      this.add(got, batch, keys);
    }
    return { batch, ended: false };
  }

  /**
   * The next unit if the source hands one over within `ms`, else undefined
   * (the source is at rest, or ended: {@link read} then says which). For
   * the target setup's sample, which must not wait on a stream at rest for
   * units that may never come.
   */
  async nextWithin(ms: number): Promise<Unit | undefined> {
    if (this.ended || this.carry) return undefined;
    const pending = (this.pending ??= this.next());
    let timer: NodeJS.Timeout | undefined;
    const got = await Promise.race([pending, new Promise<typeof IDLE>((resolve) => (timer = setTimeout(() => resolve(IDLE), ms)))]);
    clearTimeout(timer);
    if (got === IDLE) return undefined;
    this.pending = undefined;
    if (got === undefined) this.ended = true;
    return got;
  }

  private add(unit: Unit, batch: Unit[], keys: Set<string>): void {
    batch.push(unit);
    if (unit.originKey !== undefined) keys.add(unit.originKey);
  }

  /** One timer shared by every wait that starts within its span, rather than one per unit. */
  private idleTick(): Promise<typeof IDLE> {
    return (this.tick ??= new Promise((resolve) => {
      setTimeout(() => {
        this.tick = undefined;
        resolve(IDLE);
      }, CHANGE_BATCH_WAIT_MS);
    }));
  }
}
