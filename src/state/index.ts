/**
 * The state store: per-record ledger, cursors, runs, dead-letter and locks.
 * See docs/state.md for what is stored and how checkpoints work.
 */
import type { PostgresStateStoreOptions } from './postgres/postgres-state-store.js';
import { SqliteStateStore } from './sqlite/sqlite-state-store.js';
import type { SqliteStateStoreOptions } from './sqlite/sqlite-state-store.js';
import type { StateStore } from './types.js';
import { parseStateUrl } from './url.js';

export * from './types.js';
export type { ExportLayoutStore } from './export-layouts.js';
export type { ExportFingerprintStore, StagedFingerprint } from './export-fingerprints.js';
export { parseStateUrl } from './url.js';
export type { StateLocation } from './url.js';

/** Options of either backend; `schema` and `poolSize` apply to PostgreSQL only. */
export type StateStoreOptions = SqliteStateStoreOptions & Pick<PostgresStateStoreOptions, 'schema' | 'poolSize'>;

/**
 * Opens the state store named by a `state.url`: `sqlite:/abs/path.db` (parent
 * directories are created), `sqlite::memory:`, or `postgres://…` (shared
 * state, in `options.schema`, default `ferry`). Resolves once the store is
 * usable: a PostgreSQL store has connected and migrated.
 */
export async function openStateStore(url: string, options: StateStoreOptions = {}): Promise<StateStore> {
  const location = parseStateUrl(url);
  switch (location.kind) {
    case 'sqlite':
      return new SqliteStateStore(location.path, options);
    case 'sqlite-memory':
      return new SqliteStateStore(':memory:', options);
    case 'postgres': {
      // Imported only for PostgreSQL state: SQLite state (the default) never loads the driver.
      const { PostgresStateStore } = await import('./postgres/postgres-state-store.js');
      return new PostgresStateStore(location.url, options).opened();
    }
  }
}
