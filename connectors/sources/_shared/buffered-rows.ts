/**
 * What a file parser's rows share as a {@link BufferedIterator}: the
 * iterator protocol around one synchronous step over the rows at hand.
 * `next()` waits for more when the step has none; `takeBuffered()` only
 * takes. A failure met after some rows were taken is not thrown at once,
 * which would lose those rows: the next call throws it.
 */
import type { BufferedIterator } from '../../../src/sdk/index.js';

export abstract class BufferedRows<Row> implements AsyncIterableIterator<Row>, BufferedIterator<Row> {
  /** A failure met by takeBuffered() after it had taken rows: thrown by the next call, so those rows are handed over first. */
  private failure: { error: unknown } | undefined;

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Row>> {
    if (this.failure) return Promise.reject(this.takeFailure());
    return this.nextRow();
  }

  /** Up to `max` of the rows at hand, without waiting; none before the first next() (nothing is open yet) or at the end. */
  takeBuffered(max: number): Row[] {
    if (this.failure) throw this.takeFailure();
    const step = this.heldRowStep();
    const rows: Row[] = [];
    if (step === undefined) return rows;
    try {
      while (rows.length < max) {
        const row = step();
        if (row === undefined) break;
        rows.push(row);
      }
    } catch (error) {
      const failure = this.fail(error);
      if (rows.length === 0) throw failure;
      this.failure = { error: failure };
    }
    return rows;
  }

  async return(): Promise<IteratorResult<Row>> {
    this.failure = undefined;
    this.close();
    return { done: true, value: undefined };
  }

  /** The next row, waiting for the text when none is at hand; done at the end. Throws as the read would. */
  protected abstract nextRow(): Promise<IteratorResult<Row>>;
  /** The synchronous step over the rows at hand (undefined from it: none), or undefined while nothing is open or after the end. */
  protected abstract heldRowStep(): (() => Row | undefined) | undefined;
  /** Ends the read after `error`, and gives what to throw for it. */
  protected abstract fail(error: unknown): unknown;
  /** Ends the read (the parser or stream is destroyed). */
  protected abstract close(): void;

  private takeFailure(): unknown {
    const { error } = this.failure!;
    this.failure = undefined;
    return error;
  }
}
