/**
 * Opens the state database: creates its directory, sets the pragmas the
 * delivery guarantees rely on, and migrates the schema. Every failure becomes
 * a FERRY_STATE_ERROR that names the file and says what to do.
 */
import Database from 'better-sqlite3';
import { makeFolder } from '../../sdk/folders.js';
import { closeSync, openSync, readSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { FerryError } from '../../sdk/errors.js';
import { messageOf } from '../../sdk/guards.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';

/**
 * SQLite's page cache for the state file, in KiB (a negative cache_size).
 * better-sqlite3 builds SQLite with 16 MB, and the ledger of a long sync
 * fills it, and a long run's memory would grow past what ferry's memory
 * goal allows (docs/performance.md). Pages that
 * leave it are still in the OS's file cache, one read away.
 */
const STATE_CACHE_KIB = -4096;

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** How long a writer waits for another process's write lock before failing. */
  busyTimeoutMs: number;
}

/** `path` is absolute, or `:memory:`. */
export function openDatabase(path: string, options: OpenDatabaseOptions): Db {
  const where = path === ':memory:' ? 'in-memory state' : path;
  if (path !== ':memory:') {
    try {
      makeFolder(dirname(path));
    } catch (cause) {
      throw new FerryError('FERRY_STATE_ERROR', `cannot create the directory of the state file ${path}`, {
        where,
        cause,
        hint: 'check that the directory is writable, or point state.url somewhere writable',
      });
    }
  }
  let db: Db | undefined;
  try {
    db = new Database(path);
    configureConnection(db, options.busyTimeoutMs);
    migrate(db, where);
    return db;
  } catch (cause) {
    db?.close();
    if (cause instanceof FerryError) throw cause;
    throw new FerryError('FERRY_STATE_ERROR', `cannot open the state database ${where}: ${messageOf(cause)}`, {
      where,
      cause,
      hint: notDatabaseHint(path) ??
        'if the file is damaged or is not a ferry state database, move it aside (ferry starts a fresh one; ' +
          'records are then re-pushed once, which the service treats as updates) or restore it from a backup',
    });
  }
}

/** SQLite files start with these 16 bytes. */
const SQLITE_HEADER = 'SQLite format 3\u0000';

/** Endings a state file has; such a file that is not SQLite is a damaged state file, not a data file named by mistake. */
const STATE_FILE_ENDINGS = new Set(['.db', '.sqlite', '.sqlite3', '.db3']);

/**
 * When `path` is some other file (a CSV, a JSON file) rather than a SQLite
 * database, say so: state.url names the file ferry keeps its own state in,
 * not a data file.
 */
function notDatabaseHint(path: string): string | undefined {
  if (STATE_FILE_ENDINGS.has(extname(path).toLowerCase())) return undefined;
  let head: Buffer;
  try {
    const fd = openSync(path, 'r');
    try {
      head = Buffer.alloc(16);
      head = head.subarray(0, readSync(fd, head, 0, 16, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (head.length === 0 || head.toString('latin1') === SQLITE_HEADER) return undefined;
  return `${basename(path)} is not a SQLite database (${extname(path) ? `a ${extname(path).slice(1)} file` : 'another kind of file'}): state.url names the file ferry keeps its own state in, not a data file; point it at a file of its own, e.g. state: { url: sqlite:state/ferry.db }`;
}

/**
 * The settings every connection to a state file needs (most of SQLite's
 * pragmas hold per connection): the store's own, and its threads'.
 */
export function configureConnection(db: Db, busyTimeoutMs: number): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
  // WAL lets `ferry status` read while a run writes; NORMAL sync keeps every
  // commit atomic (a crash rolls back to the last checkpoint, never half of one).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = ${STATE_CACHE_KIB}`);
  // Copy the WAL back every 10,000 pages (40 MB of disk), not SQLite's 1,000: with ids in random order
  // (UUIDs) each commit dirties a page per record, and each checkpoint copies and syncs them again
  // (figures: docs/performance.md).
  db.pragma('wal_autocheckpoint = 10000');
}

function migrate(db: Db, where: string): void {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  const current = hasMeta ? readVersion(db) : 0;
  if (current > SCHEMA_VERSION) {
    throw new FerryError('FERRY_STATE_ERROR', `state database ${where} has schema version ${current}, newer than this ferry understands (${SCHEMA_VERSION})`, {
      where,
      hint: 'upgrade ferry, or point state.url at another file',
    });
  }
  if (current === SCHEMA_VERSION) return;
  // IMMEDIATE so two processes opening a fresh file don't both migrate it.
  db.transaction(() => {
    const again = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined ? readVersion(db) : 0;
    for (let v = again; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v] ?? '');
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
      String(SCHEMA_VERSION),
    );
  }).immediate();
}

function readVersion(db: Db): number {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  return row === undefined ? 0 : Number(row.value);
}
