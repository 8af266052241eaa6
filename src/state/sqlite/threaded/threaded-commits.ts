/**
 * The store's commits on a thread of their own (commit-thread-worker.ts):
 * the fast path of the store's commit, which the store otherwise runs on its
 * own connection (sqlite-state-store.ts, `commit`). Why: with ids in random
 * order (UUIDs, hashes) each acknowledgement writes its own ledger page, and
 * a commit on the run's own thread holds every request in flight while it
 * runs. Here the commits overlap the pushes. Figures: docs/performance.md.
 *
 * This is the store's side: the commits sent and not yet answered, in
 * order, each applied in one transaction with the cursor (when it moves)
 * last. Reads that concern a record in one of them wait for it
 * ({@link touches}, {@link settled}); a writer that would put more than
 * {@link MAX_IN_FLIGHT} commits in flight waits for room ({@link room}), so
 * a thread slower than the pushes holds the run back instead of letting the
 * writes pile up in memory.
 *
 * When a commit fails, the thread applies none of the later ones, and all
 * of them come back, in order, through `takeBack`: the store puts their
 * writes before its own buffer and commits on its own connection from then
 * on. Nothing is lost; the cursor moves only in a commit that succeeded.
 */
import type { CursorMove } from '../apply-writes.js';
import { packWrites, type CommitWrites } from './commit-message.js';
import { RequestThread, type StateThreadInput } from './request-thread.js';
import type { WriteBuffer } from '../write-buffer.js';

/** One commit for the thread (commit-thread-worker.ts): one transaction, the cursor last. */
export interface CommitRequest {
  writes: CommitWrites;
  move?: CursorMove;
}

/** Commits in flight at most: a few batches' worth of writes. */
const MAX_IN_FLIGHT = 4;

interface InFlight {
  writes: WriteBuffer;
  /** Resolves when the commit has been answered, either way. */
  settled: Promise<void>;
}

export class ThreadedCommits {
  private readonly thread: RequestThread<CommitRequest, null>;
  private inFlight: InFlight[] = [];
  private failed = false;

  constructor(
    input: StateThreadInput,
    /** Receives the writes of every commit the thread did not apply, in order, after a failure. */
    private readonly takeBack: (writes: WriteBuffer[]) => void,
  ) {
    this.thread = new RequestThread(import.meta.url, 'commit-thread-worker', input);
  }

  /** False after a commit failed: the store commits on its own connection. */
  get usable(): boolean {
    return !this.failed && this.thread.usable;
  }

  get idle(): boolean {
    return this.inFlight.length === 0;
  }

  get full(): boolean {
    return this.inFlight.length >= MAX_IN_FLIGHT;
  }

  /** Sends `writes` (and the cursor move) to be committed after every commit sent before; resolves once committed. */
  send(writes: WriteBuffer, move: CursorMove | undefined): Promise<void> {
    let done!: () => void;
    const entry: InFlight = { writes, settled: new Promise<void>((resolve) => (done = resolve)) };
    this.inFlight.push(entry);
    const packed = packWrites(writes.pending());
    const committed = this.thread.request(move === undefined ? { writes: packed } : { writes: packed, move }).then(
      () => {
        this.inFlight.splice(this.inFlight.indexOf(entry), 1);
        done();
      },
      (error: unknown) => {
        this.fail(entry);
        done();
        throw error;
      },
    );
    // A commit nobody waits for (one the buffer filled) reports its failure through takeBack alone.
    committed.catch(() => undefined);
    return committed;
  }

  /** Whether a commit in flight holds a write of one of these records. */
  touches(sync: string, remoteIds: readonly string[]): boolean {
    return this.inFlight.some((entry) => entry.writes.touches(sync, remoteIds));
  }

  /** Resolves when fewer than {@link MAX_IN_FLIGHT} commits are in flight. */
  async room(): Promise<void> {
    while (this.full) await this.inFlight[0]!.settled;
  }

  /** Resolves when every commit sent so far has been answered. */
  async settled(): Promise<void> {
    while (this.inFlight.length > 0) await this.answered();
  }

  /**
   * Resolves when every commit sent before this call has been answered; unlike {@link settled}, not
   * those sent while it waits (commits are answered in order, so the last one sent stands for all).
   */
  answered(): Promise<void> {
    return this.inFlight.at(-1)?.settled ?? Promise.resolve();
  }

  /** Lets the commits in flight finish, then ends the thread. */
  async close(): Promise<void> {
    await this.settled();
    await this.thread.close();
  }

  /** The first failure: every commit still in flight (this one and the later ones) comes back to the store. */
  private fail(entry: InFlight): void {
    if (!this.inFlight.includes(entry)) return;
    this.failed = true;
    const returned = this.inFlight.map((e) => e.writes);
    this.inFlight = [];
    this.takeBack(returned);
  }
}
