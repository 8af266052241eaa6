/**
 * The state store: per-record ledger, cursors, runs, dead-letter and locks.
 * See docs/state.md for what is stored and how checkpoints work.
 */
import { FerryError } from '../sdk/errors.js';
import { SqliteStateStore } from './sqlite/sqlite-state-store.js';
import type { SqliteStateStoreOptions } from './sqlite/sqlite-state-store.js';
import type { StateStore } from './types.js';
import { redactUrl } from '../sdk/redact.js';
import { parseStateUrl } from './url.js';

export * from './types.js';
export { parseStateUrl } from './url.js';
export type { StateLocation } from './url.js';
export type { SqliteStateStoreOptions as StateStoreOptions } from './sqlite/sqlite-state-store.js';

/**
 * Opens the state store named by a `state.url`: `sqlite:/abs/path.db` (parent
 * directories are created) or `sqlite::memory:`. `postgres://…` is reserved
 * for shared state and not supported yet.
 */
export function openStateStore(url: string, options: SqliteStateStoreOptions = {}): StateStore {
  const location = parseStateUrl(url);
  switch (location.kind) {
    case 'sqlite':
      return new SqliteStateStore(location.path, options);
    case 'sqlite-memory':
      return new SqliteStateStore(':memory:', options);
    case 'postgres':
      throw new FerryError('FERRY_STATE_ERROR', `Postgres state (${redactUrl(location.url)}) is not supported yet`, {
        hint: 'use state.url: sqlite:state/ferry.db for now',
      });
  }
}
