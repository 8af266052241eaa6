/**
 * Reading a large CSV file on a parse thread (parse-worker.ts): the rows
 * arrive in batches, and the lines with invalid bytes with them. A no-op
 * re-run spent about half its time in csv-parse before ferry's own work on
 * each row; with the parse beside that work, the run takes about as long as
 * the larger of the two. Posting a row costs a fraction of parsing it.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker, threadSetting } from '../../../src/sdk/index.js';
import type { InvalidLines } from '../_shared/invalid-encoding.js';
import { PendingLines } from '../_shared/utf8-check.js';
import { errorOf, type ParseThreadInput, type ParseThreadMessage } from './parse-thread-protocol.js';
import type { CsvParseOptions, CsvValues } from './parser.js';

/** Files from this size on are parsed on a thread: below it, starting one (tens of ms) costs more than it saves. */
export const THREAD_FROM_BYTES = 4 * 1024 * 1024;

/**
 * The size from which a file gets a parse thread, as `FERRY_CSV_PARSE_THREAD`
 * says: unset or `auto`, {@link THREAD_FROM_BYTES}; `off`, never. An
 * operator's setting rather than a source option: it changes how the file
 * is read, never the rows, so it stays out of the sync's config (whose
 * every option is part of what tells an unchanged record on a re-run).
 */
export function threadFromBytesSetting(env: NodeJS.ProcessEnv = process.env): number {
  const hint = 'unset it (or set "auto") to parse CSV files of 4 MiB or more on a worker thread; "off" parses every file in the run\'s own thread';
  return threadSetting('FERRY_CSV_PARSE_THREAD', env, hint) === 'off' ? Number.POSITIVE_INFINITY : THREAD_FROM_BYTES;
}

/**
 * The thread's young generation, MB. Nearly all it allocates is garbage
 * within a batch, and V8 otherwise grew it to its default of tens of MB:
 * the peak RSS of a run rose by 30-40 MB; held to a few MB, by 15-20 (a
 * thread's own isolate and modules are most of that). Not lower than 8: at
 * 2 MB the thread collected so often that it took 1.3-1.4x the time of a
 * plain csv-parse of the file; at 8 MB, 1.13x (200,000 deal rows drained
 * by an idle reader, 6 alternating rounds), for a few MB more at the peak
 * (a no-op re-run of 100,000 rows: 176-177 MB against 167-174).
 * Large values (a long quoted field) go to V8's large-object space, which
 * this does not limit.
 */
const THREAD_YOUNG_GENERATION_MB = 8;

export class ParseThread implements CsvValues, InvalidLines {
  private readonly worker: Worker;
  private readonly queue: string[][][] = [];
  private rows: string[][] = [];
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

  /** Starts parsing `path` at once; `signal` aborts the read (wait() rejects with its reason). */
  constructor(path: string, options: CsvParseOptions, signal: AbortSignal) {
    // The source's options are plain data (what zod parsed from YAML): they cross as they are.
    const input: ParseThreadInput = { path, options };
    this.worker = startModuleWorker(import.meta.url, 'parse-worker', input, { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB });
    // Held only while the reader waits for it (wait()), so an abandoned read never keeps the process alive.
    this.worker.unref();
    this.worker.on('message', (message: ParseThreadMessage) => this.receive(message));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => {
      if (!this.ended) this.fail(new Error(`the CSV parse thread stopped before the end of the file (exit code ${code})`));
    });
    this.signal = signal;
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  read(): string[] | null {
    if (this.at < this.rows.length) return this.rows[this.at++]!;
    const next = this.queue.shift();
    if (next === undefined) return null;
    // One batch more may come while this one is worked through.
    if (!this.stopped) this.worker.postMessage(0);
    this.rows = next;
    this.at = 1;
    return next[0]!;
  }

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

  private receive(message: ParseThreadMessage): void {
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
    this.failure ??= error ?? new Error('the CSV parse thread failed');
    this.destroy();
  }

  private awaken(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
