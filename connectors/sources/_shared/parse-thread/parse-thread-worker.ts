/**
 * The thread's side of a parse thread: a parser's rows posted to the reader
 * in batches (parse-thread-protocol.ts has the messages), each with the
 * lines whose bytes were invalid.
 *
 * Flow control is by credit: the reader grants {@link INITIAL_CREDIT}
 * batches, and one more for each batch it starts on; with none left the
 * parser is not read, and the file stream pauses behind it.
 */
import { parentPort } from 'node:worker_threads';
import type { Readable } from 'node:stream';
import type { Utf8Check } from '../utf8-check.js';
import { BATCH_ROWS, INITIAL_CREDIT, type ParseThreadMessage, describeError } from './parse-thread-protocol.js';

/**
 * Posts what `parser` (an object-mode stream of rows) reads until it ends
 * or fails, `perMessage` rows a message; `check` gives the invalid lines.
 */
export function serveRows<Row>(parser: Readable, check: Utf8Check | undefined, perMessage = BATCH_ROWS): void {
  const port = parentPort!;
  let credit = INITIAL_CREDIT;
  /** Invalid lines found so far: the check runs ahead of the parse, so these cover every row posted with them. */
  const invalid = (): number[] => check?.takeUpTo(Number.POSITIVE_INFINITY) ?? [];
  const post = (message: ParseThreadMessage<Row>): void => port.postMessage(message);

  const pump = (): void => {
    while (credit > 0) {
      const rows: Row[] = [];
      let row: Row | null;
      while (rows.length < perMessage && (row = parser.read() as Row | null) !== null) rows.push(row);
      if (rows.length === 0) return;
      credit--;
      post({ rows, invalid: invalid() });
    }
  };

  port.on('message', () => {
    credit++;
    pump();
  });
  parser.on('readable', pump);
  parser.on('end', () => {
    post({ end: true, invalid: invalid() });
    port.close();
  });
  parser.on('error', (error: unknown) => {
    post({ error: describeError(error), invalid: invalid() });
    port.close();
  });
}
