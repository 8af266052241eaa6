/**
 * The loop a file parser's `takeBuffered` runs (see BufferedIterator in the
 * SDK): rows its synchronous step has at hand, up to `max`. A failure met
 * after some rows were taken is not thrown at once, which would lose those
 * rows: it comes back beside them, for the parser to throw from its next
 * call.
 */
export interface TakenRows<Row> {
  rows: Row[];
  /** What to throw from the next call, when the step failed after `rows`. */
  failure?: { error: unknown };
}

/**
 * @param step the next row at hand, or undefined when there is none; throws as the read would.
 * @param fail ends the read after an error, and gives what to throw for it.
 */
export function takeRows<Row>(max: number, step: () => Row | undefined, fail: (error: unknown) => unknown): TakenRows<Row> {
  const rows: Row[] = [];
  try {
    while (rows.length < max) {
      const row = step();
      if (row === undefined) break;
      rows.push(row);
    }
  } catch (error) {
    const failure = fail(error);
    if (rows.length === 0) throw failure;
    return { rows, failure: { error: failure } };
  }
  return { rows };
}
