/**
 * The one family of errors ferry raises. Every code is listed in
 * {@link ERROR_CATALOGUE} with its exit code, whether retrying can help, and
 * what the user should do; `docs/errors.md` documents each one (a test checks).
 */

export interface ErrorSpec {
  /** Process exit code when this error ends a command (see DESIGN.md). */
  readonly exitCode: 1 | 2 | 3;
  /** Whether repeating the same operation later may succeed. */
  readonly retryable: boolean;
  /** One line for the catalogue: when the error happens. */
  readonly summary: string;
}

export const ERROR_CATALOGUE = {
  FERRY_CONFIG_INVALID: { exitCode: 1, retryable: false, summary: 'ferry.yaml or an included file does not parse or validate' },
  FERRY_USAGE: { exitCode: 1, retryable: false, summary: 'a command was called with wrong arguments or an unknown sync' },
  FERRY_CONNECTOR_NOT_FOUND: { exitCode: 1, retryable: false, summary: 'no built-in connector, local path or npm package matches a `type:`' },
  FERRY_PLUGIN_INCOMPATIBLE: { exitCode: 1, retryable: false, summary: 'a plugin was built for another version of the ferry SDK or exports no connector' },
  FERRY_SOURCE_UNREACHABLE: { exitCode: 3, retryable: true, summary: 'a source (file, database, API) cannot be reached or opened' },
  FERRY_SOURCE_AUTH: { exitCode: 3, retryable: false, summary: 'a source refused the credentials' },
  FERRY_SOURCE_OBJECT_MISSING: { exitCode: 3, retryable: false, summary: 'a table, column, stream or file named in the config does not exist' },
  FERRY_SOURCE_READ_FAILED: { exitCode: 3, retryable: true, summary: 'a source failed while being read' },
  FERRY_SOURCE_RECORD_TOO_LARGE: { exitCode: 3, retryable: false, summary: 'a file source met a record (a CSV row, a JSON line) larger than its maxRecordBytes' },
  FERRY_SOURCE_RESPONSE_TOO_LARGE: { exitCode: 3, retryable: false, summary: 'a source API answered more than the response cap (maxResponseBytes) or more pages than maxPages' },
  FERRY_ORIGIN_REFUSED: { exitCode: 3, retryable: false, summary: 'a redirect, next link or URL pointed at an origin the credentials do not belong to (or from https to http)' },
  FERRY_SOURCE_POSITION_LOST: { exitCode: 3, retryable: false, summary: 'a change stream cannot resume where the last run stopped (its replication slot is gone)' },
  FERRY_DESTINATION_UNREACHABLE: { exitCode: 3, retryable: true, summary: 'an export destination (file, database) cannot be opened or reached' },
  FERRY_DESTINATION_WRITE_FAILED: { exitCode: 3, retryable: false, summary: 'an export destination refused a write (schema conflict, missing key, disk full)' },
  FERRY_RECORD_INVALID: { exitCode: 2, retryable: false, summary: 'a mapped record does not fit the request shape; it is dead-lettered' },
  FERRY_RECORD_REJECTED: { exitCode: 2, retryable: false, summary: 'the service permanently rejected a record; it is dead-lettered' },
  FERRY_SERVICE_UNREACHABLE: { exitCode: 3, retryable: true, summary: 'the service could not be reached after all retries' },
  FERRY_SERVICE_AUTH: { exitCode: 3, retryable: false, summary: 'the service refused the API key (401) or it lacks a scope (403)' },
  FERRY_SERVICE_ERROR: { exitCode: 3, retryable: true, summary: 'the service answered with an unexpected status or body' },
  FERRY_BODY_TOO_LARGE: { exitCode: 2, retryable: false, summary: 'a request body exceeds the 10 MB limit and was not sent' },
  FERRY_SYNC_LOCKED: { exitCode: 3, retryable: true, summary: 'another run of the same sync holds its lock' },
  FERRY_MASS_DELETE_REFUSED: { exitCode: 3, retryable: false, summary: '`deletes: mirror` would delete more records than the guard allows' },
  FERRY_STATE_ERROR: { exitCode: 3, retryable: false, summary: 'the state store cannot be opened or written' },
  FERRY_ASK_FAILED: { exitCode: 3, retryable: false, summary: 'an ask-assistant run failed, stopped, or outlived its deadline' },
  FERRY_ABORTED: { exitCode: 3, retryable: true, summary: 'the run was stopped by a signal after checkpointing' },
  FERRY_INTERNAL: { exitCode: 3, retryable: false, summary: 'an unexpected error inside ferry (a bug); the run checkpointed what was acknowledged' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface FerryErrorOptions {
  /** What the user should do about it. */
  hint?: string;
  /** Where it happened: `file:line:col`, sync name, record key. */
  where?: string;
  cause?: unknown;
  /** Structured facts for logs and JSON output (never secrets). */
  details?: Record<string, unknown>;
  /**
   * `false`: no stack trace is captured (the error's `stack` is its first
   * line alone). For errors that stand for something outside the code, an
   * HTTP answer say, whose stack would only show ferry's own plumbing.
   */
  stack?: false;
}

/** An error a user can act on: a stable code, where it happened, and what to do. */
export class FerryError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly where: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: FerryErrorOptions = {}) {
    const limit = options.stack === false ? stopStackTraces() : undefined;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    restoreStackTraces(limit);
    this.name = 'FerryError';
    this.code = code;
    this.hint = options.hint;
    this.where = options.where;
    this.details = options.details ?? {};
  }

  get exitCode(): 1 | 2 | 3 {
    return ERROR_CATALOGUE[this.code].exitCode;
  }

  get retryable(): boolean {
    return ERROR_CATALOGUE[this.code].retryable;
  }

  /** Multi-line text for a terminal: what, where, what to do. */
  describe(): string {
    const lines = [`${this.code}: ${this.message}`];
    if (this.where) lines.push(`  at ${this.where}`);
    if (this.hint) lines.push(`  hint: ${this.hint}`);
    return lines.join('\n');
  }
}

/** Node's `--frozen-intrinsics` makes the limit read-only: errors then keep their stacks. */
const stackLimitWritable = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')?.writable === true;

/**
 * Turns V8's stack capture off until the caller puts back the limit this
 * returns (undefined: it could not be turned off). Capturing a stack is most
 * of what making an error costs, for each 429 a push is answered with, deep
 * in a chain of promises: under a fault mix, a few per cent of a run's CPU
 * (docs/performance.md).
 */
function stopStackTraces(): number | undefined {
  if (!stackLimitWritable) return undefined;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return limit;
}

/** Puts back the limit {@link stopStackTraces} returned (nothing when it could not stop them). */
function restoreStackTraces(limit: number | undefined): void {
  if (limit !== undefined) Error.stackTraceLimit = limit;
}

/** A plain `Error` with `message` and no stack trace (its `stack` is `Error: message`); see {@link FerryErrorOptions.stack}. */
export function stacklessError(message: string): Error {
  const limit = stopStackTraces();
  try {
    return new Error(message);
  } finally {
    restoreStackTraces(limit);
  }
}

/** True for a FerryError, optionally of one code. */
export function isFerryError(error: unknown, code?: ErrorCode): error is FerryError {
  return error instanceof FerryError && (code === undefined || error.code === code);
}
