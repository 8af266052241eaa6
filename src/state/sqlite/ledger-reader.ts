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
import { RequestThread, type StateThreadInput } from './request-thread.js';
import type { SourceLookColumns } from './source-looks.js';

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
