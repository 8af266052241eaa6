/**
 * Reading a large file on a parse thread (a `parse-worker.ts` beside the
 * file format's parser, serving rows with parse-thread-worker.ts): the rows
 * arrive in batches, and the lines with invalid bytes with them. The fast
 * path of a file source's parse: the plain path parses on the run's own
 * thread (csv/parser.ts, jsonl/parse-file.ts), with the same rows. Why: a
 * no-op re-run spends much of its time parsing before ferry's own work on
 * each row; with the parse beside that work, the run takes about as long as
 * the larger of the two. Posting a row costs a fraction of parsing it.
 * Figures: docs/performance.md.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker, threadSetting } from '../../../../src/sdk/index.js';
import type { InvalidLines } from '../invalid-encoding.js';
import { PendingLines } from '../utf8-check.js';
import { errorOf, type ParseThreadMessage } from './parse-thread-protocol.js';

/** Files from this size on are parsed on a thread: below it, starting one (tens of ms) costs more than it saves. */
export const THREAD_FROM_BYTES = 4 * 1024 * 1024;

/**
 * The size from which a file gets a parse thread, as the operator's setting
 * `name` (FERRY_CSV_PARSE_THREAD, FERRY_JSONL_PARSE_THREAD) says: unset or
 * `auto`, the format's own choice (`auto`: by default {@link THREAD_FROM_BYTES});
 * `on`, every file; `off`, none. An
 * operator's setting rather than a source option: it changes how the file
 * is read, never the rows, so it stays out of the sync's config (whose
 * every option is part of what tells an unchanged record on a re-run).
 */
export function threadFromBytesSetting(name: string, format: string, env: NodeJS.ProcessEnv = process.env, auto: number = THREAD_FROM_BYTES): number {
  const hint = `unset it (or set "auto") to let ferry choose; "on" parses every ${format} file on a worker thread, "off" every file in the run's own thread`;
  const setting = threadSetting(name, env, hint, true);
  return setting === 'off' ? Number.POSITIVE_INFINITY : setting === 'on' ? 0 : auto;
}

/**
 * The thread's young generation, MB. Nearly all it allocates is garbage
 * within a batch, and the default (tens of MB) would add that much to a
 * run's peak memory; much lower, the thread collects so often that parsing
 * slows. 8 is the balance measured (docs/performance.md).
 * Large values (a long quoted field) go to V8's large-object space, which
 * this does not limit.
 */
const THREAD_YOUNG_GENERATION_MB = 8;

/** Where a parse thread's module lies and what it is given. */
export interface ParseThreadStart {
  /** The `import.meta.url` of a module beside the worker's. */
  importMetaUrl: string;
  /** The worker module's name, without its extension. */
  worker: string;
  /** Its workerData: plain data (a source's options are what zod parsed from YAML). */
  input: unknown;
  /** The format, for the message when the thread dies ("CSV"). */
  format: string;
}

export class ParseThread<Row> implements InvalidLines {
  private readonly worker: Worker;
  private readonly queue: Row[][] = [];
  private rows: Row[] = [];
  private at = 0;
  private ended = false;
  /** Why the read stopped at once (abort, a thread that died): thrown before any row still queued. */
  private failure: unknown;
  /** The error the file ended with: thrown after the rows that came before it. */
  private endError: Error | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly invalid = new PendingLines();
  private readonly signal: AbortSignal;
  private readonly onAbort = (): void => this.fail(this.signal.reason);

  /** Starts the thread at once; `signal` aborts the read (wait() rejects with its reason). */
  constructor(start: ParseThreadStart, signal: AbortSignal) {
    this.worker = startModuleWorker(start.importMetaUrl, start.worker, start.input, { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB });
    // Held only while the reader waits for it (wait()), so an abandoned read never keeps the process alive.
    this.worker.unref();
    this.worker.on('message', (message: ParseThreadMessage<Row>) => this.receive(message));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => {
      if (!this.ended) this.fail(new Error(`the ${start.format} parse thread stopped before the end of the file (exit code ${code})`));
    });
    this.signal = signal;
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The next row at hand, or null when none is (then {@link wait}). */
  read(): Row | null {
    if (this.at < this.rows.length) return this.rows[this.at++]!;
    const next = this.queue.shift();
    if (next === undefined) return null;
    // One batch more may come while this one is worked through.
    if (!this.stopped) this.worker.postMessage(0);
    this.rows = next;
    this.at = 1;
    return next[0]!;
  }

  /** Resolves once read() may give a row (false) or the file has ended (true); rejects with the read's error. */
  async wait(): Promise<boolean> {
    for (;;) {
      if (this.failure !== undefined) throw this.failure;
      if (this.queue.length > 0) return false;
      if (this.endError !== undefined) throw this.endError;
      if (this.ended) return true;
      this.worker.ref();
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.worker.unref();
    }
  }

  takeUpTo(line: number): number[] {
    return this.invalid.takeUpTo(line);
  }

  /** Stops the thread; a wait() after it finds the read over. */
  destroy(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.ended = true;
    // The run's signal outlives the file: nothing of this read may stay reachable from it.
    this.signal.removeEventListener('abort', this.onAbort);
    this.queue.length = 0;
    this.rows = [];
    void this.worker.terminate();
    this.awaken();
  }

  private receive(message: ParseThreadMessage<Row>): void {
    this.invalid.add(message.invalid);
    if ('rows' in message) this.queue.push(message.rows);
    else if ('end' in message) this.ended = true;
    else {
      this.ended = true;
      this.endError = errorOf(message.error);
    }
    this.awaken();
  }

  private fail(error: unknown): void {
    this.failure ??= error ?? new Error('the parse thread failed');
    this.destroy();
  }

  private awaken(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
