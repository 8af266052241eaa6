/**
 * How a run stops. A stop signal (SIGINT/SIGTERM) ends reading but lets
 * in-flight pushes finish; a fatal error (service gone, state unwritable, a
 * bug) ends reading and aborts the pushes too. The first fatal error is the
 * one the run reports.
 */
export class RunStop {
  private fatalError: { error: unknown } | undefined;
  private readonly pushes = new AbortController();
  /** Aborted by the stop signal or a fatal error: stop reading. */
  readonly readSignal: AbortSignal;

  constructor(readonly signal: AbortSignal) {
    this.readSignal = AbortSignal.any([signal, this.pushes.signal]);
  }

  /** Aborted only by a fatal error: in-flight pushes are given up. */
  get pushSignal(): AbortSignal {
    return this.pushes.signal;
  }

  /** Records the run's fatal error (the first one wins) and stops everything. */
  fail(error: unknown): void {
    this.fatalError ??= { error };
    this.pushes.abort();
  }

  get failed(): boolean {
    return this.fatalError !== undefined;
  }

  /** The fatal error, boxed so that even a thrown `undefined` counts. */
  get failure(): { error: unknown } | undefined {
    return this.fatalError;
  }

  /** Whether reading should stop, for whatever reason. */
  get stopping(): boolean {
    return this.failed || this.readSignal.aborted;
  }
}
