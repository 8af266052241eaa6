/**
 * When the SQLite store's two threads start (the commit thread,
 * threaded-commits.ts, and the ledger reader, ledger-reader.ts). A short run
 * never starts one: starting a thread costs more than it saves until a run
 * has written or looked up many records. Until then, and whenever a thread
 * has failed, the store does the same work on its own connection (the plain
 * path, sqlite-state-store.ts).
 */
import { threadSetting } from '../../../sdk/module-worker.js';

/** Ids looked at, or writes made, before a thread starts, by default. */
const THREADS_AFTER = 10_000;

/**
 * When the store's threads start, as `FERRY_STATE_THREADS` says: unset or
 * `auto`, after {@link THREADS_AFTER} ids looked up or records written; `on`,
 * at once; `off`, never. An operator's setting: it changes where the state
 * file is read and written, never what.
 */
export function threadsAfterSetting(env: NodeJS.ProcessEnv = process.env): number {
  const hint = 'unset it (or set "auto") to read and write the state file on threads once a run has looked up or written 10,000 records; "on" at once, "off" never';
  const setting = threadSetting('FERRY_STATE_THREADS', env, hint, true);
  return setting === 'off' ? Number.POSITIVE_INFINITY : setting === 'on' ? 0 : THREADS_AFTER;
}

/**
 * A count that decides when one of the store's threads starts: reached once
 * `after` has been counted before this call (so a short run never starts it).
 */
export class StartAfter {
  private counted = 0;

  constructor(private readonly after: number) {}

  /** Whether the count had reached `after` before this call; counts `n` when it had not. */
  reached(n: number): boolean {
    if (this.counted >= this.after) return true;
    this.counted += n;
    return false;
  }
}
