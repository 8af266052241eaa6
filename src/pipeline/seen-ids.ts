/**
 * The remote ids one read has seen: for duplicate ids within a read
 * (duplicate-ids.ts) and for `deletes: mirror` after a complete read
 * (deletes.ts). Asked once per record.
 *
 * The port and its plain implementation, a `Set`, which says what the
 * answers are. A read uses the fast path, {@link SeenSet}
 * (src/pipeline/fast/seen-set.ts): the same answers in a fraction of the
 * memory, spilling to a temporary file past a budget, so a read of ten
 * million records keeps its memory flat. test/unit/pipeline/seen-ids.test.ts
 * checks that the two agree. See docs/performance.md#the-fast-paths.
 */
import { SeenSet } from './fast/seen-set.js';

export interface SeenIds {
  add(id: string): void;
  /** Adds `id` and tells whether it was new. */
  addNew(id: string): boolean;
  has(id: string): boolean;
  /** Frees what the set holds; it answers nothing after. */
  close(): void;
}

/** The plain path: every id in a `Set` (its memory grows with the read). */
export class PlainSeenIds implements SeenIds {
  private ids = new Set<string>();

  add(id: string): void {
    this.ids.add(id);
  }

  addNew(id: string): boolean {
    const size = this.ids.size;
    this.ids.add(id);
    return this.ids.size > size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  close(): void {
    this.ids = new Set();
  }
}

/** The set a read uses: the compact, spilling one. */
export function seenIds(): SeenIds {
  return new SeenSet();
}
