/**
 * Schema of the SQLite state store, one entry per version. Never edit an
 * entry that has shipped: append a new one. `meta.schema_version` records how
 * many have been applied.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  -- What the service last acknowledged per record. The primary key is the
  -- (sync, remote_id) index every fingerprint lookup uses.
  CREATE TABLE ledger (
    sync TEXT NOT NULL,
    remote_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    record_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('pushed', 'failed', 'deleted')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    origin TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (sync, remote_id)
  ) WITHOUT ROWID;
  -- Keeps countLive and the mirror-delete scan off the failed/deleted rows.
  CREATE INDEX ledger_live ON ledger(sync, remote_id) WHERE status = 'pushed';

  -- One high-watermark per sync; position is JSON text so values keep full precision.
  CREATE TABLE cursors (
    sync TEXT PRIMARY KEY,
    position TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL UNIQUE,
    sync TEXT NOT NULL,
    started_at TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'partial', 'failed', 'aborted')),
    counts TEXT NOT NULL,
    duration_ms INTEGER,
    error TEXT,
    cursor TEXT
  );
  CREATE INDEX runs_sync ON runs(sync, seq);

  -- The dead-letter. At most one open entry per (sync, remote_id); a newer
  -- failure of the same record replaces it.
  CREATE TABLE failures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sync TEXT NOT NULL,
    run_id TEXT REFERENCES runs(run_id) ON DELETE SET NULL,
    remote_id TEXT,
    origin TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('invalid', 'rejected')),
    reason TEXT NOT NULL,
    status INTEGER,
    error_body TEXT,
    body TEXT,
    source_record TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL
  );
  CREATE INDEX failures_sync ON failures(sync, id);
  CREATE UNIQUE INDEX failures_record ON failures(sync, remote_id) WHERE remote_id IS NOT NULL;
  CREATE INDEX failures_run ON failures(run_id);

  -- One run of a sync at a time, across processes: a lease that expires.
  CREATE TABLE locks (
    sync TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    acquired_at TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
  );
  `,
  `
  -- Hash of the source record plus the mapping's identity at the last
  -- acknowledgement: an equal hash means "unchanged" without mapping again.
  ALTER TABLE ledger ADD COLUMN source_fingerprint TEXT;
  `,
  `
  -- One open dead-letter entry per record also when its id could not be
  -- mapped: a repeat is found by origin and source record. Older files may
  -- hold such repeats: keep the newest, counting each repeat as an attempt.
  CREATE INDEX failures_origin ON failures(sync, origin) WHERE origin IS NOT NULL;
  UPDATE failures SET attempts = (
      SELECT count(*) - 1 + max(d.attempts) FROM failures d
      WHERE d.sync = failures.sync AND d.origin = failures.origin AND d.source_record IS failures.source_record)
    WHERE remote_id IS NULL AND origin IS NOT NULL AND id = (
      SELECT max(d.id) FROM failures d
      WHERE d.sync = failures.sync AND d.origin = failures.origin AND d.source_record IS failures.source_record);
  DELETE FROM failures
    WHERE remote_id IS NULL AND origin IS NOT NULL AND id < (
      SELECT max(d.id) FROM failures d
      WHERE d.sync = failures.sync AND d.origin = failures.origin AND d.source_record IS failures.source_record);
  `,
  `
  -- ledger_live doubled what every acknowledgement writes (a second B-tree
  -- on the same key) to keep the live count and the mirror scan off failed
  -- and deleted rows, which are few: the primary key serves both in the same
  -- order (the cost of the second index: docs/performance.md, "State store").
  DROP INDEX IF EXISTS ledger_live;
  `,
  `
  -- What each record an export wrote looked like, as a hash (docs/exports.md#changed-records):
  -- the committed fingerprint, and the one a run staged under its load id until the
  -- destination committed. staged NULL with staged_load set: the record was deleted.
  CREATE TABLE export_fingerprints (
    export TEXT NOT NULL,
    record_key TEXT NOT NULL,
    fingerprint TEXT,
    staged TEXT,
    staged_load TEXT,
    PRIMARY KEY (export, record_key)
  ) WITHOUT ROWID;
  CREATE INDEX export_fingerprints_staged ON export_fingerprints(export, staged_load) WHERE staged_load IS NOT NULL;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
