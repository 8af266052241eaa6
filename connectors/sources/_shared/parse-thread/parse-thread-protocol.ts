/** What a file reader and its parse thread (a `parse-worker.ts` beside the parser) send each other. */

/** Rows per message: large enough that posting costs little per row, small enough to start work early. */
export const BATCH_ROWS = 512;
/** Batches a parse thread may post before the reader asks for more: what it holds ahead is bounded. */
export const INITIAL_CREDIT = 4;

/** An error as it crosses threads: what readFailure and a log show of it. */
export interface ThreadError {
  name: string;
  message: string;
  code?: string;
  /** The line the error is at, when the error knows it (a line above the size limit). */
  line?: number;
}

/** Every message carries the lines with invalid bytes found since the last one. */
export type ParseThreadMessage<Row> = { invalid: number[] } & ({ rows: Row[] } | { end: true } | { error: ThreadError });

export function describeError(error: unknown): ThreadError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const { code, line } = error as { code?: unknown; line?: unknown };
  return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}), ...(typeof line === 'number' ? { line } : {}) };
}

export function errorOf(described: ThreadError): Error {
  const error = new Error(described.message);
  error.name = described.name;
  if (described.code !== undefined) Object.assign(error, { code: described.code });
  if (described.line !== undefined) Object.assign(error, { line: described.line });
  return error;
}
