/**
 * A parse thread: reads one CSV file and posts its rows to the reader in
 * batches (parse-thread-protocol.ts has the messages). Reading, decoding and parsing
 * a large file is most of what a no-op re-run does; here it runs beside the
 * work that follows it instead of before it.
 *
 * Flow control is by credit: the reader grants {@link INITIAL_CREDIT}
 * batches, and one more for each batch it starts on; with none left the
 * parser is not read, and the file stream pauses behind it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isUtf8Encoding, Utf8Check } from '../_shared/utf8-check.js';
import { openCsvParser } from './parser.js';
import { BATCH_ROWS, INITIAL_CREDIT, type ParseThreadInput, type ParseThreadMessage, describeError } from './parse-thread-protocol.js';

const port = parentPort!;
const { path, options } = workerData as ParseThreadInput;
const check = isUtf8Encoding(options.encoding) ? new Utf8Check() : undefined;
const parser = openCsvParser(path, options, { check });
let credit = INITIAL_CREDIT;

/** Invalid lines found so far: the check runs ahead of the parse, so these cover every row posted with them. */
const invalid = (): number[] => check?.takeUpTo(Number.POSITIVE_INFINITY) ?? [];
const post = (message: ParseThreadMessage): void => port.postMessage(message);

function pump(): void {
  while (credit > 0) {
    const rows: string[][] = [];
    let row: string[] | null;
    while (rows.length < BATCH_ROWS && (row = parser.read() as string[] | null) !== null) rows.push(row);
    if (rows.length === 0) return;
    credit--;
    post({ rows, invalid: invalid() });
  }
}

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
