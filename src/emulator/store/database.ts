/**
 * Opens the emulator's SQLite database and brings its schema up to date.
 * One file holds everything (keys, sources, object types, records, CRM data,
 * ask runs, the full-text index, media), so a file-backed emulator survives
 * restarts with all its state.
 */
import Database from 'better-sqlite3';
import { makeFolder } from '../../sdk/folders.js';
import { dirname } from 'node:path';

export type Db = Database.Database;

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE sources (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    name TEXT NOT NULL,
    display_name TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    deleted_ms INTEGER
  );
  -- Names are unique among the live sources of an organization; a deleted name can be reused.
  CREATE UNIQUE INDEX sources_live_name ON sources(org_id, name) WHERE deleted_ms IS NULL;

  CREATE TABLE object_types (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    name TEXT NOT NULL,
    display_name TEXT NOT NULL,
    field_definitions TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    deleted_ms INTEGER
  );
  CREATE UNIQUE INDEX object_types_live_name ON object_types(source_id, name) WHERE deleted_ms IS NULL;
  CREATE INDEX object_types_org ON object_types(org_id, created_ms);

  CREATE TABLE records (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    source_id TEXT NOT NULL,
    remote_id TEXT NOT NULL,
    public INTEGER NOT NULL,
    owner_emails TEXT NOT NULL,
    native INTEGER NOT NULL DEFAULT 0,
    object_type_id TEXT,
    sort_ms INTEGER NOT NULL,
    data TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    deleted_ms INTEGER
  );
  CREATE UNIQUE INDEX records_key ON records(org_id, kind, source_id, remote_id);
  CREATE INDEX records_list ON records(org_id, kind, sort_ms DESC, id DESC);

  CREATE TABLE crm_deals (
    org_id TEXT NOT NULL,
    deal_id TEXT NOT NULL,
    sort_ms INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (org_id, deal_id)
  );
  CREATE INDEX crm_deals_list ON crm_deals(org_id, sort_ms DESC, deal_id DESC);

  CREATE TABLE crm_accounts (
    org_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    sort_ms INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (org_id, account_id)
  );
  CREATE INDEX crm_accounts_list ON crm_accounts(org_id, sort_ms DESC, account_id DESC);

  CREATE TABLE ask_runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    org_id TEXT NOT NULL,
    message TEXT NOT NULL,
    status TEXT NOT NULL,
    final_status TEXT NOT NULL,
    output TEXT,
    error TEXT,
    created_ms INTEGER NOT NULL,
    ready_ms INTEGER NOT NULL
  );

  CREATE TABLE media (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    content_type TEXT NOT NULL,
    bytes BLOB NOT NULL
  );

  -- One row per searchable passage of a public, live record.
  CREATE VIRTUAL TABLE search_passages USING fts5(
    org_id UNINDEXED, record_id UNINDEXED, kind UNINDEXED, title, body,
    tokenize = 'porter unicode61'
  );
  `,
  // FTS5 cannot index record_id, so deleting a record's passages scanned the
  // whole index on every write; this side table maps records to passage rowids.
  `
  CREATE TABLE search_rows (
    passage_rowid INTEGER PRIMARY KEY,
    org_id TEXT NOT NULL,
    record_id TEXT NOT NULL
  );
  CREATE INDEX search_rows_record ON search_rows(record_id);
  CREATE INDEX search_rows_org ON search_rows(org_id);
  DELETE FROM search_passages;
  INSERT INTO meta(key, value) VALUES ('search_rebuild', '1')
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
  `,
  // An account's deals were found by parsing every deal of the organization,
  // which took seconds per accounts page with a seeded CRM of 8,800 deals.
  `
  ALTER TABLE crm_deals ADD COLUMN account_id TEXT;
  ALTER TABLE crm_deals ADD COLUMN account_name_lc TEXT;
  UPDATE crm_deals SET account_id = json_extract(data, '$.accountId'), account_name_lc = lower(json_extract(data, '$.accountName'));
  CREATE INDEX crm_deals_account ON crm_deals(org_id, account_id);
  CREATE INDEX crm_deals_account_name ON crm_deals(org_id, account_name_lc) WHERE account_id IS NULL;
  -- Summaries are now indexed as text rather than JSON.
  INSERT INTO meta(key, value) VALUES ('search_rebuild', '1')
    ON CONFLICT(key) DO UPDATE SET value = excluded.value;
  `,
  // Indexing a record in its own write transaction made FTS5 flush a segment
  // per request (a third of each write's cost); writes now queue the record
  // here and the index catches up in batches, always before a search.
  `
  CREATE TABLE search_pending (record_id TEXT PRIMARY KEY);
  `,
];

/** Open (creating if needed) the database at `path` (`:memory:` for a throw-away one) and migrate it. */
export function openDatabase(path: string): Db {
  if (path !== ':memory:') makeFolder(dirname(path));
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let i = version; i < MIGRATIONS.length; i++) {
    const sql = MIGRATIONS[i] ?? '';
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${i + 1}`);
    })();
  }
  return db;
}

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/** A prepared statement, compiled once per database and reused (preparing costs more than most queries). */
export function prepared(db: Db, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) {
    cache = new Map();
    statements.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}
