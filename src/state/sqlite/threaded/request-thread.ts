/**
 * A thread of the state store that answers requests one at a time, in the
 * order they came (the ledger reader, the commit thread): both sides of it.
 * Each request carries an id; the answer or the error comes back with it.
 */
import { once } from 'node:events';
import { parentPort, type Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../../sdk/module-worker.js';

/** What a state thread is started with. */
export interface StateThreadInput {
  /** The state file (absolute); the store has opened and migrated it. */
  path: string;
  busyTimeoutMs: number;
}

type Envelope<R> = { id: number; request: R } | { close: true };
type Reply<A> = { id: number; answer: A } | { id: number; error: string };

/** The thread's young generation: its messages are small and short-lived. */
const YOUNG_GENERATION_MB = 4;

interface Waiting<A> {
  resolve: (answer: A) => void;
  reject: (error: Error) => void;
}

/** The store's side: sends requests, and hands each its answer. */
export class RequestThread<R, A> {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting<A>>();
  private nextId = 0;
  /** Why the thread can no longer answer; set once. */
  private stopped: Error | undefined;
  private closing = false;

  /** Starts `name` (a module beside `importMetaUrl` that calls {@link serveRequests}). */
  constructor(importMetaUrl: string, name: string, input: StateThreadInput) {
    this.worker = startModuleWorker(importMetaUrl, name, input, { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB });
    // Idle, the thread must not keep the process alive; while a request waits, it must.
    this.worker.unref();
    this.worker.on('message', (reply: Reply<A>) => this.answer(reply));
    this.worker.on('error', (error: Error) => this.stop(error));
    this.worker.on('exit', (code) => this.stop(new Error(this.closing ? 'the state store is closed' : `the state thread ${name} stopped (exit code ${code})`)));
  }

  /** False once the thread has failed or was closed. */
  get usable(): boolean {
    return this.stopped === undefined;
  }

  request(request: R): Promise<A> {
    if (this.stopped) return Promise.reject(this.stopped);
    if (this.closing) return Promise.reject(new Error('the state store is closed'));
    const id = this.nextId++;
    return new Promise<A>((resolve, reject) => {
      const envelope: Envelope<R> = { id, request };
      this.worker.postMessage(envelope); // throws (and so rejects) before anything waits, if the request cannot be copied
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
    });
  }

  /** Lets the requests sent so far be answered, then ends the thread (which closes its connection first). */
  async close(): Promise<void> {
    if (this.stopped || this.closing) return;
    this.closing = true;
    const ended = once(this.worker, 'exit');
    this.worker.ref(); // until it has ended
    const envelope: Envelope<R> = { close: true };
    this.worker.postMessage(envelope);
    await ended;
  }

  private answer(reply: Reply<A>): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker.unref();
    if ('error' in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply.answer);
  }

  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const { reject } of this.waiting.values()) reject(reason);
    this.waiting.clear();
    this.worker.unref();
  }
}

/**
 * The thread's side: answers each request with `handle` (an answer, and the
 * buffers to move rather than copy), and on close calls `close` and ends.
 */
export function serveRequests<R, A>(handle: (request: R) => { answer: A; transfer?: ArrayBuffer[] }, close: () => void): void {
  const port = parentPort!;
  port.on('message', (envelope: Envelope<R>) => {
    if ('close' in envelope) {
      close();
      port.close();
      return;
    }
    let reply: Reply<A>;
    let transfer: ArrayBuffer[] = [];
    try {
      const handled = handle(envelope.request);
      reply = { id: envelope.id, answer: handled.answer };
      transfer = handled.transfer ?? [];
    } catch (error) {
      reply = { id: envelope.id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply, transfer);
  });
}
