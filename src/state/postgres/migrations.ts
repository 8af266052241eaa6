/**
 * Schema of the PostgreSQL state store, one entry per version, mirroring the
 * SQLite schema (src/state/sqlite/migrations.ts) table for table so both
 * backends keep the same semantics. Never edit an entry that has shipped:
 * append a new one. `{s}` stands for the quoted schema name.
 */
export const PG_MIGRATIONS: readonly string[] = [
  `
  -- COLLATE "C": remote ids sort by bytes, as in SQLite, and the mirror-delete scan pages along the index.
  CREATE TABLE {s}.ledger (
    sync text NOT NULL,
    remote_id text COLLATE "C" NOT NULL,
    fingerprint text NOT NULL,
    record_id text,
    status text NOT NULL CHECK (status IN ('pushed', 'failed', 'deleted')),
    attempts integer NOT NULL DEFAULT 0,
    last_error text,
    origin text,
    updated_at text NOT NULL,
    PRIMARY KEY (sync, remote_id)
  );
  CREATE INDEX ledger_live ON {s}.ledger (sync, remote_id) WHERE status = 'pushed';

  -- position is JSON text (as in SQLite) so cursor values keep full precision.
  CREATE TABLE {s}.cursors (
    sync text PRIMARY KEY,
    position text NOT NULL,
    updated_at text NOT NULL
  );

  CREATE TABLE {s}.runs (
    seq bigserial PRIMARY KEY,
    run_id text NOT NULL UNIQUE,
    sync text NOT NULL,
    started_at text NOT NULL,
    started_ms bigint NOT NULL,
    finished_at text,
    status text NOT NULL CHECK (status IN ('running', 'succeeded', 'partial', 'failed', 'aborted')),
    counts text NOT NULL,
    duration_ms bigint,
    error text,
    cursor text
  );
  CREATE INDEX runs_sync ON {s}.runs (sync, seq);

  CREATE TABLE {s}.failures (
    id bigserial PRIMARY KEY,
    sync text NOT NULL,
    run_id text REFERENCES {s}.runs (run_id) ON DELETE SET NULL,
    remote_id text,
    origin text,
    kind text NOT NULL CHECK (kind IN ('invalid', 'rejected')),
    reason text NOT NULL,
    status integer,
    error_body text,
    body text,
    source_record text,
    attempts integer NOT NULL DEFAULT 1,
    created_at text NOT NULL
  );
  CREATE INDEX failures_sync ON {s}.failures (sync, id);
  CREATE UNIQUE INDEX failures_record ON {s}.failures (sync, remote_id) WHERE remote_id IS NOT NULL;
  CREATE INDEX failures_run ON {s}.failures (run_id);

  CREATE TABLE {s}.locks (
    sync text PRIMARY KEY,
    owner text NOT NULL,
    acquired_at text NOT NULL,
    expires_ms bigint NOT NULL
  );
  `,
  `
  -- Hash of the source record plus the mapping's identity at the last
  -- acknowledgement (SQLite migration 2): an equal hash means "unchanged"
  -- without mapping again.
  ALTER TABLE {s}.ledger ADD COLUMN source_fingerprint text;
  `,
  `
  -- A repeat of a failure whose id did not map is found by origin and source record.
  CREATE INDEX failures_origin ON {s}.failures (sync, origin) WHERE origin IS NOT NULL;
  `,
  `
  -- What each record an export wrote looked like, as a hash (SQLite migration 5).
  CREATE TABLE {s}.export_fingerprints (
    export text NOT NULL,
    record_key text NOT NULL,
    fingerprint text,
    staged text,
    staged_load text,
    PRIMARY KEY (export, record_key)
  );
  CREATE INDEX export_fingerprints_staged ON {s}.export_fingerprints (export, staged_load) WHERE staged_load IS NOT NULL;
  `,
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;
