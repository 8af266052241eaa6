/**
 * The server-side objects of a capture and what `ferry check` and
 * `ferry status` ask of the server: the replication slot (its lag), the
 * publication, wal_level, the role's REPLICATION right and each table's
 * replica identity.
 */
import type pg from 'pg';
import { quoteIdentifier } from '../_sql/identifiers.js';

const q = (name: string): string => quoteIdentifier(name, 'ansi');

export interface SlotInfo {
  plugin: string;
  database: string;
  active: boolean;
  confirmedFlush: string | null;
  /** WAL bytes the slot holds back for ferry (current WAL position − confirmed_flush_lsn). */
  lagBytes: number;
  /** `reserved`, `extended`, `unreserved` or `lost` (PostgreSQL 13+), else null. */
  walStatus: string | null;
  /** Seconds since the stream last reported its position, while it is connected. */
  replySeconds: number | null;
}

export async function slotInfo(sql: pg.Client, slot: string): Promise<SlotInfo | undefined> {
  const result = await sql.query<{ plugin: string; database: string; active: boolean; confirmed: string | null; lag: string | null; wal_status: string | null; reply_seconds: number | null }>(
    `SELECT s.plugin, s.database, s.active, s.confirmed_flush_lsn::text AS confirmed,
            (pg_current_wal_lsn() - s.confirmed_flush_lsn)::int8::text AS lag,
            to_jsonb(s) ->> 'wal_status' AS wal_status,
            (SELECT extract(epoch FROM now() - r.reply_time)::float8 FROM pg_stat_replication r WHERE r.pid = s.active_pid) AS reply_seconds
       FROM pg_replication_slots s WHERE s.slot_name = $1`,
    [slot],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    plugin: row.plugin,
    database: row.database,
    active: row.active,
    confirmedFlush: row.confirmed,
    lagBytes: Math.max(0, Number(row.lag ?? 0)),
    walStatus: row.wal_status,
    replySeconds: row.reply_seconds,
  };
}

export async function currentDatabase(sql: pg.Client): Promise<string> {
  const result = await sql.query<{ db: string }>('SELECT current_database() AS db');
  return result.rows[0]!.db;
}

/** The publication's tables, or undefined when it does not exist. */
export async function publicationTables(sql: pg.Client, publication: string): Promise<{ all: boolean; tables: { schema: string; name: string }[] } | undefined> {
  const found = await sql.query<{ puballtables: boolean }>('SELECT puballtables FROM pg_publication WHERE pubname = $1', [publication]);
  const row = found.rows[0];
  if (!row) return undefined;
  const tables = await sql.query<{ schema: string; name: string }>('SELECT schemaname AS schema, tablename AS name FROM pg_publication_tables WHERE pubname = $1', [publication]);
  return { all: row.puballtables, tables: tables.rows };
}

/** Tables the publication lacks (all of them when it does not exist). */
export async function missingFromPublication(sql: pg.Client, publication: string, schema: string, tables: readonly string[]): Promise<string[] | undefined> {
  const found = await publicationTables(sql, publication);
  if (!found) return undefined;
  if (found.all) return [];
  const have = new Set(found.tables.map((t) => `${t.schema}.${t.name}`));
  return tables.filter((table) => !have.has(`${schema}.${table}`));
}

/** Creates the publication for the tables; returns false when it existed already (it is then used as it is). */
export async function ensurePublication(sql: pg.Client, publication: string, schema: string, tables: readonly string[]): Promise<boolean> {
  const exists = await sql.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [publication]);
  if (exists.rowCount! > 0) return false;
  await sql.query(`CREATE PUBLICATION ${q(publication)} FOR TABLE ${tables.map((t) => `${q(schema)}.${q(t)}`).join(', ')}`);
  return true;
}

export async function dropSlot(sql: pg.Client, slot: string): Promise<boolean> {
  const result = await sql.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1', [slot]);
  return result.rowCount! > 0;
}

export async function dropPublication(sql: pg.Client, publication: string): Promise<boolean> {
  const exists = await sql.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [publication]);
  if (exists.rowCount === 0) return false;
  await sql.query(`DROP PUBLICATION ${q(publication)}`);
  return true;
}

export async function walLevel(sql: pg.Client): Promise<string> {
  const result = await sql.query<{ wal_level: string }>('SHOW wal_level');
  return result.rows[0]!.wal_level;
}

/** Whether the role may stream: the REPLICATION attribute, superuser, or (RDS, Cloud SQL) membership in rds_replication. */
export async function canReplicate(sql: pg.Client): Promise<boolean> {
  const result = await sql.query<{ ok: boolean }>(
    `SELECT r.rolreplication OR r.rolsuper
            OR EXISTS (SELECT 1 FROM pg_roles g WHERE g.rolname IN ('rds_replication', 'cloudsqlsuperuser') AND pg_has_role(r.oid, g.oid, 'member')) AS ok
       FROM pg_roles r WHERE r.rolname = current_user`,
  );
  return result.rows[0]?.ok === true;
}

/** `d` default, `f` full, `i` index, `n` nothing; and whether the table has columns whose values may be TOASTed. */
export async function replicaIdentity(sql: pg.Client, schema: string, table: string): Promise<{ identity: string; toastable: string[] } | undefined> {
  const result = await sql.query<{ identity: string; toastable: string[] | null }>(
    `SELECT c.relreplident AS identity,
            (SELECT array_agg(a.attname::text ORDER BY a.attnum) FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
              WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND t.typstorage <> 'p') AS toastable
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = $2`,
    [schema, table],
  );
  const row = result.rows[0];
  return row ? { identity: row.identity, toastable: row.toastable ?? [] } : undefined;
}
