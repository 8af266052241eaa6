/**
 * The ledger's source looks on a thread of their own. A no-op re-run asks
 * the ledger about every record; with ids in random order (UUIDs, hashes,
 * the CRM dataset's) nearly every look reads a page that is not in SQLite's
 * cache, and a look took about 9 µs of the main thread: 200,000 UUIDs spent
 * 1.8 of the run's 3.1 s there. On this thread the looks overlap the rest
 * of the run's work (the run asks for the next batch's look before it
 * handles the current batch).
 *
 * A look reads what was committed when the thread runs it. The store
 * commits first any buffered write to an id it asks about; a write to one
 * of those ids made after the request is a duplicate's, whose look decides
 * nothing (see UnitProcessor).
 */
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../sdk/module-worker.js';
import type { CloseRequest, LedgerReaderInput, LookReply, LookRequest } from './ledger-reader-protocol.js';
import type { SourceLookColumns } from './source-looks.js';

/** The thread's young generation: its messages are small and short-lived. */
const YOUNG_GENERATION_MB = 4;

interface Waiting {
  resolve: (look: SourceLookColumns) => void;
  reject: (error: Error) => void;
}

export class LedgerReader {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  /** Why the thread can no longer answer; set once. */
  private stopped: Error | undefined;

  constructor(input: LedgerReaderInput) {
    this.worker = startModuleWorker(import.meta.url, 'ledger-reader-thread', input, { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB });
    // Idle, the thread must not keep the process alive; while a look waits, it must.
    this.worker.unref();
    this.worker.on('message', (reply: LookReply) => this.answer(reply));
    this.worker.on('error', (error: Error) => this.stop(error));
    this.worker.on('exit', (code) => this.stop(new Error(`the ledger reader thread stopped (exit code ${code})`)));
  }

  /** False once the thread has failed or was closed: the store then looks on its own connection. */
  get usable(): boolean {
    return this.stopped === undefined;
  }

  look(sync: string, remoteIds: readonly string[], sourcePrints: readonly string[]): Promise<SourceLookColumns> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<SourceLookColumns>((resolve, reject) => {
      const request: LookRequest = { id, sync, remoteIds, sourcePrints };
      this.worker.postMessage(request); // throws (and so rejects) before anything waits, if the request cannot be copied
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
    });
  }

  /** Closes the thread's connection and waits for the thread to end. */
  async close(): Promise<void> {
    const running = this.stopped === undefined;
    this.stop(new Error('the state store is closed'));
    if (!running) return;
    const ended = once(this.worker, 'exit');
    this.worker.ref(); // until it has ended
    const request: CloseRequest = { close: true };
    this.worker.postMessage(request);
    await ended;
  }

  private answer(reply: LookReply): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker.unref();
    if ('error' in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve({ unchanged: reply.unchanged, others: reply.others });
  }

  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const { reject } of this.waiting.values()) reject(reason);
    this.waiting.clear();
    this.worker.unref();
  }
}
