/**
 * The store's commits on a thread of their own. With ids in random order
 * (UUIDs, hashes) each acknowledgement writes its own ledger page: about
 * 50 µs of SQLite work a record, which on the run's own thread held every
 * request in flight while a commit of 500 ran (a first run of 1M UUID rows
 * took 230 s against 104 s with ids in order). Here the commits overlap the
 * pushes.
 *
 * Commits are applied in the order they are sent, each in one transaction,
 * the cursor (when it moves) last. After a commit fails, the thread applies
 * none of those sent after it: the store takes all of them back, in order,
 * and commits on its own connection from then on.
 */
import { RequestThread, type StateThreadInput } from './request-thread.js';
import type { CursorMove } from './apply-writes.js';
import type { PendingWrite } from './write-buffer.js';

export interface CommitRequest {
  writes: readonly PendingWrite[];
  move?: CursorMove;
}

export class CommitThread {
  private readonly thread: RequestThread<CommitRequest, null>;

  constructor(input: StateThreadInput) {
    this.thread = new RequestThread(import.meta.url, 'commit-thread-worker', input);
  }

  get usable(): boolean {
    return this.thread.usable;
  }

  /** Resolves once the writes (and the cursor) are committed. */
  async commit(writes: readonly PendingWrite[], move: CursorMove | undefined): Promise<void> {
    await this.thread.request(move === undefined ? { writes } : { writes, move });
  }

  /** Lets the commits sent so far finish, then ends the thread. */
  close(): Promise<void> {
    return this.thread.close();
  }
}
