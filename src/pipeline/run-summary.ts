/**
 * The end of a run: its status and exit code from what happened, the summary
 * the CLI prints, and the error a failed run is thrown as.
 */
import { FerryError, isFerryError } from '../sdk/errors.js';
import type { CursorPosition } from '../sdk/types.js';
import type { PushLimits, SchemaChange } from '../sink/index.js';
import type { RunCounts } from '../state/index.js';
import type { DuplicateId } from './duplicate-ids.js';

export type RunStatus = 'succeeded' | 'partial' | 'failed' | 'aborted';

export interface RunSummary {
  sync: string;
  runId: string | null;
  status: RunStatus;
  counts: RunCounts;
  durationMs: number;
  cursor: CursorPosition | null;
  changes: SchemaChange[];
  /** Dry runs: records that would be deleted by `deletes: mirror`. */
  wouldDelete?: number;
  /** The first records not pushed because an earlier record of the read had their id (all are counted in `counts.duplicates`). */
  duplicates?: DuplicateId[];
  /** The concurrency and rate the push settled on, and why neither is higher (absent on dry runs). */
  limits?: PushLimits;
  error?: string;
  exitCode: 0 | 1 | 2 | 3;
}

/** What a run ended with, before its summary is written. */
export interface RunEnding {
  /** The first fatal error, if any. */
  fatal: { error: unknown } | undefined;
  /** The stop signal arrived (and no fatal error happened). */
  aborted: boolean;
  counts: RunCounts;
}

export function runStatus(ending: RunEnding): RunStatus {
  if (ending.fatal) return 'failed';
  if (ending.aborted) return 'aborted';
  return ending.counts.failed > 0 ? 'partial' : 'succeeded';
}

/** The text stored in the run's row and shown in the summary; undefined for a run that ended normally. */
export function runErrorText(ending: RunEnding): string | undefined {
  if (ending.fatal) return describeError(ending.fatal.error);
  return ending.aborted ? 'stopped by signal after checkpointing' : undefined;
}

/**
 * The exit code of a run (DESIGN.md): 0, 2 with records in the dead-letter,
 * 3 for a runtime failure, but 1 when what stopped it is a configuration
 * problem only found once reading began (docs/errors.md: nothing could be
 * pushed until the config changes).
 */
export function exitCodeOf(status: RunStatus, fatal?: unknown): 0 | 1 | 2 | 3 {
  if (status === 'failed' && (isFerryError(fatal, 'FERRY_CONFIG_INVALID') || isFerryError(fatal, 'FERRY_USAGE'))) return 1;
  return status === 'succeeded' ? 0 : status === 'partial' ? 2 : 3;
}

/**
 * The error a failed run is thrown as: the run's error, with the summary of
 * what the run got done before it failed (counts, run id, cursor). It keeps
 * the code, message, hint and stack of the error it stands for, so callers
 * read it as that error; `summary` is typed, so nobody casts to find it.
 */
export class RunFailure extends FerryError {
  readonly summary: RunSummary;

  constructor(error: FerryError, summary: RunSummary) {
    super(error.code, error.message, {
      ...(error.hint !== undefined ? { hint: error.hint } : {}),
      ...(error.where !== undefined ? { where: error.where } : {}),
      details: error.details,
      ...(error.cause !== undefined ? { cause: error.cause } : {}),
    });
    if (error.stack !== undefined) this.stack = error.stack;
    this.summary = summary;
  }
}

/**
 * The failure a run that failed with `error` is thrown as. A FerryError
 * keeps its code; anything else is unexpected (a bug in ferry or a plugin)
 * and becomes FERRY_INTERNAL, which is not retryable: it is not bad data or
 * a lost connection, and the same run would fail the same way.
 */
export function runFailure(error: unknown, summary: RunSummary): RunFailure {
  if (isFerryError(error)) return new RunFailure(error, summary);
  const internal = new FerryError('FERRY_INTERNAL', `unexpected error in sync "${summary.sync}": ${describeError(error)}`, {
    cause: error,
    where: `sync ${summary.sync}`,
    hint: 'this is a bug: report it with the log (it has the stack); what was acknowledged is checkpointed',
  });
  return new RunFailure(internal, summary);
}

/** The summary a failed run's error carries, if it is a {@link RunFailure}. */
export function failedRunSummary(error: unknown): RunSummary | undefined {
  return error instanceof RunFailure ? error.summary : undefined;
}

export function describeError(error: unknown): string {
  if (isFerryError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
