import { compareCursorPositions, compareCursorValues } from '../sdk/cursor.js';
import type { CursorPosition } from '../sdk/types.js';

/**
 * Decides how far the incremental cursor may move. Records are pushed
 * concurrently and finish out of order; the cursor may only advance to the
 * last record of the longest fully-finished prefix of the read order, so a
 * crash never leaves an unacknowledged record below the stored cursor.
 *
 * That rule is only sound while the source yields records in cursor order.
 * File sources are not sorted, so the first time a cursor value goes down the
 * tracker stops offering mid-run checkpoints, and the cursor moves once, at
 * the end of a complete read, to the highest value seen. A group unit spans
 * a range of cursors: it keeps the order only when its lowest cursor lies
 * above every position before it, or a crash after an earlier group's
 * checkpoint would re-read part of this group alone.
 */
export class CheckpointTracker {
  private nextSeq = 0;
  private prefixEnd = 0; // every seq below this is finished
  private readonly finished = new Set<number>();
  private readonly positions = new Map<number, CursorPosition>();
  private prefixPosition: CursorPosition | undefined;
  private lastBegun: CursorPosition | undefined;
  private highest: CursorPosition | undefined;
  private ordered = true;

  /**
   * `positionsInReadOrder`: the positions are a change source's resume
   * tokens, ordered by the read itself (comparing them says nothing).
   */
  constructor(private readonly positionsInReadOrder = false) {}

  /**
   * Register a record (or group, with its `lowest` cursor) in read order;
   * returns its ticket for {@link finish}.
   */
  begin(position?: CursorPosition, lowest?: string | number): number {
    const seq = this.nextSeq++;
    if (position) {
      if (this.lastBegun && !this.keepsOrder(position, lowest)) this.ordered = false;
      this.lastBegun = position;
      if (!this.highest || compareCursorPositions(position, this.highest) > 0) this.highest = position;
      this.positions.set(seq, position);
    }
    return seq;
  }

  private keepsOrder(position: CursorPosition, lowest: string | number | undefined): boolean {
    if (this.positionsInReadOrder) return true;
    if (lowest === undefined) return compareCursorValues(position.value, this.lastBegun!.value) >= 0;
    return compareCursorValues(lowest, this.lastBegun!.value) > 0;
  }

  /** Mark a record acknowledged, unchanged or dead-lettered: nothing more will happen to it. */
  finish(seq: number): void {
    // In read order with nothing finished ahead of it (every unchanged record
    // of a re-run): the prefix moves by one, no set to touch.
    if (seq === this.prefixEnd && this.finished.size === 0) {
      this.advance();
      return;
    }
    this.finished.add(seq);
    while (this.finished.has(this.prefixEnd)) {
      this.finished.delete(this.prefixEnd);
      this.advance();
    }
  }

  private advance(): void {
    if (this.positions.size > 0) {
      const position = this.positions.get(this.prefixEnd);
      if (position) {
        this.prefixPosition = position;
        this.positions.delete(this.prefixEnd);
      }
    }
    this.prefixEnd++;
  }

  /** Records begun but not finished. */
  get pending(): number {
    return this.nextSeq - this.prefixEnd;
  }

  /** Whether every cursor so far has been non-decreasing in read order. */
  get sorted(): boolean {
    return this.ordered;
  }

  /** A position safe to store now, mid-run; undefined when none is (yet). */
  safePosition(): CursorPosition | undefined {
    return this.ordered ? this.prefixPosition : undefined;
  }

  /**
   * The position to store after a complete read with nothing pending: the
   * last one read when the source was sorted (its key order is the source's,
   * which text comparison of keys cannot know), else the highest value seen.
   */
  finalPosition(): CursorPosition | undefined {
    if (this.pending > 0) return this.safePosition();
    return this.ordered ? this.lastBegun : this.highest;
  }
}
