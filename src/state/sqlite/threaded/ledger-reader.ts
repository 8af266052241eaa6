/**
 * The ledger's source looks on a thread of their own: the fast path of
 * `unchangedAtSource`, which the store otherwise answers on its own
 * connection (the same SQL, source-looks.ts). Why: a no-op re-run asks the
 * ledger about every record, and with ids in random order (UUIDs, hashes)
 * nearly every look reads a page that is not in SQLite's cache. On this
 * thread the looks overlap the rest of the run's work (the run asks for the
 * next batch's look before it handles the current batch). Figures:
 * docs/performance.md.
 *
 * A look reads what was committed when the thread runs it. The store
 * commits first any buffered write to an id it asks about; a write to one
 * of those ids made after the request is a duplicate's, whose look decides
 * nothing (see src/pipeline/ledger-look.ts).
 */
import { RequestThread, type StateThreadInput } from './request-thread.js';
import type { SourceLookColumns } from '../source-looks.js';

/** One batch's source look. */
export interface LookRequest {
  sync: string;
  remoteIds: readonly string[];
  sourcePrints: readonly string[];
}

export class LedgerReader {
  private readonly thread: RequestThread<LookRequest, SourceLookColumns>;

  constructor(input: StateThreadInput) {
    this.thread = new RequestThread(import.meta.url, 'ledger-reader-thread', input);
  }

  /** False once the thread has failed or was closed: the store then looks on its own connection. */
  get usable(): boolean {
    return this.thread.usable;
  }

  look(sync: string, remoteIds: readonly string[], sourcePrints: readonly string[]): Promise<SourceLookColumns> {
    return this.thread.request({ sync, remoteIds, sourcePrints });
  }

  /** Closes the thread's connection and waits for the thread to end. */
  close(): Promise<void> {
    return this.thread.close();
  }
}
