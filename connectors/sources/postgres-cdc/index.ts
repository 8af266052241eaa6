/**
 * The built-in `postgres-cdc` source: change data capture over PostgreSQL's
 * logical replication with the built-in `pgoutput` plugin (no extension on
 * the server). A first run creates the publication and the replication slot
 * and reads the snapshot the slot exported, in key-ordered chunks; later
 * runs stream the slot's changes: inserts and updates as upserts, deletes as
 * deletes. The position is stored with ferry's ledger and confirmed to the
 * slot only once stored. See docs/cdc.md.
 *
 * Written on `pg` directly (replication=database connections, COPY BOTH
 * through pg-copy-streams), not pg-logical-replication: both are already
 * ferry's dependencies, and the source needs what a callback-driven client
 * hides: backpressure from the pipeline to the socket, and confirming an LSN
 * only when ferry says the changes before it landed.
 */
import { FerryError, defineSource } from '../../../src/sdk/index.js';
import { describeTable } from '../postgres/catalog.js';
import { fieldTypeOf } from '../_sql/columns.js';
import type { SourceLag } from '../../../src/sdk/index.js';
import { capture } from './capture.js';
import { cdcError, connect } from './connect.js';
import { namesOf, postgresCdcOptions, tablesOf, type PostgresCdcOptions } from './options.js';
import { canReplicate, dropPublication, dropSlot, missingFromPublication, replicaIdentity, slotInfo, walLevel } from './slot.js';
import { parseToken } from './token.js';
import type pg from 'pg';

async function withSql<T>(ctx: { options: PostgresCdcOptions; baseDir: string; syncName: string }, work: (sql: pg.Client) => Promise<T>): Promise<T> {
  const sql = await connect(ctx, false);
  try {
    return await work(sql);
  } catch (error) {
    throw cdcError(ctx, error);
  } finally {
    await sql.end().catch(() => undefined);
  }
}

export default defineSource({
  name: 'postgres-cdc',
  options: postgresCdcOptions,
  example: { url: 'postgres://ferry:${PGPASSWORD}@localhost:5432/crm', table: 'deals', primaryKey: 'id' },
  changes: true,
  follows: true,

  keys(options) {
    const key = options.primaryKey;
    return key === undefined ? {} : { primaryKey: Array.isArray(key) ? key : [key] };
  },

  /** wal_level, the REPLICATION right, the tables and their keys, the publication, and each table's replica identity (TOAST). */
  async check(ctx) {
    return withSql(ctx, async (sql) => {
      const { options } = ctx;
      const notes: string[] = [];
      const level = await walLevel(sql);
      if (level !== 'logical') {
        throw new FerryError('FERRY_CONFIG_INVALID', `sync "${ctx.syncName}": wal_level is ${level}; logical replication needs wal_level = logical`, {
          where: `sync ${ctx.syncName}`,
          hint: 'ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL (on a managed service: rds.logical_replication = 1, cloudsql.logical_decoding = on)',
        });
      }
      if (!(await canReplicate(sql))) {
        throw new FerryError('FERRY_SOURCE_AUTH', `sync "${ctx.syncName}": the role in url lacks the REPLICATION attribute`, {
          where: `sync ${ctx.syncName}`,
          hint: 'ALTER ROLE <role> WITH REPLICATION (on RDS: GRANT rds_replication TO <role>); see docs/cdc.md',
        });
      }
      const { slot, publication } = namesOf(options, ctx.syncName);
      for (const table of tablesOf(options)) {
        const info = await describeTable(sql, table, options.schema);
        if (!info) throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `sync "${ctx.syncName}": table ${options.schema}.${table} does not exist`, { where: `sync ${ctx.syncName}` });
        if (options.primaryKey === undefined && info.primaryKey.length === 0) {
          throw new FerryError('FERRY_CONFIG_INVALID', `sync "${ctx.syncName}": table ${options.schema}.${table} has no primary key`, { where: `sync ${ctx.syncName}`, hint: 'name the key with primaryKey: and give the table REPLICA IDENTITY FULL' });
        }
        const identity = await replicaIdentity(sql, options.schema, table);
        if (identity && identity.identity !== 'f' && identity.toastable.length > 0) {
          notes.push(
            `${options.schema}.${table} has REPLICA IDENTITY ${identity.identity === 'd' ? 'DEFAULT' : identity.identity === 'i' ? 'USING INDEX' : 'NOTHING'}: an update that leaves a large (TOASTed) value of ${identity.toastable.join(', ')} unchanged does not carry it, so ferry reads it back from the table (one query per such update). ALTER TABLE ${options.schema}.${table} REPLICA IDENTITY FULL makes the WAL carry it instead`,
          );
        }
        if (identity?.identity === 'n') throw new FerryError('FERRY_CONFIG_INVALID', `sync "${ctx.syncName}": ${options.schema}.${table} has REPLICA IDENTITY NOTHING: its updates and deletes cannot be captured`, { where: `sync ${ctx.syncName}`, hint: `ALTER TABLE ${options.schema}.${table} REPLICA IDENTITY DEFAULT (or FULL)` });
      }
      const missing = await missingFromPublication(sql, publication, options.schema, tablesOf(options));
      if (missing === undefined) notes.push(`publication ${publication} does not exist yet: the first run creates it (the role needs CREATE on the database and to own the tables)`);
      else if (missing.length > 0) {
        throw new FerryError('FERRY_CONFIG_INVALID', `sync "${ctx.syncName}": publication ${publication} does not include ${missing.join(', ')}`, { where: `sync ${ctx.syncName}`, hint: `ALTER PUBLICATION ${publication} ADD TABLE ${missing.map((t) => `${options.schema}.${t}`).join(', ')}` });
      } else notes.push(`publication ${publication} includes the table(s)`);
      const info = await slotInfo(sql, slot);
      notes.push(info ? `replication slot ${slot}: ${info.lagBytes} bytes of WAL held back${info.active ? ', streaming' : ''}` : `replication slot ${slot} does not exist yet: the first run creates it`);
      return notes;
    });
  },

  async discover(ctx) {
    return withSql(ctx, async (sql) => {
      const streams = [];
      for (const table of tablesOf(ctx.options)) {
        const info = await describeTable(sql, table, ctx.options.schema);
        if (!info) throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `sync "${ctx.syncName}": table ${ctx.options.schema}.${table} does not exist`, { where: `sync ${ctx.syncName}` });
        streams.push({
          name: `${ctx.options.schema}.${table}`,
          fields: info.columns.map((column) => ({ name: column.name, type: fieldTypeOf(column.kind), sourceType: column.dbType, nullable: column.nullable })),
          primaryKey: info.primaryKey,
          ...(info.estimatedCount !== undefined ? { estimatedCount: info.estimatedCount } : {}),
        });
      }
      return streams;
    });
  },

  read: (ctx) => capture(ctx),

  /** The slot's lag for `ferry status`: WAL held back, how long since the stream reported, a warning above lagWarnBytes or when the slot is gone. */
  async lag(ctx) {
    return withSql(ctx, async (sql): Promise<SourceLag> => {
      const { slot } = namesOf(ctx.options, ctx.syncName);
      const info = await slotInfo(sql, slot);
      if (!info) {
        const started = ctx.resumeFrom !== undefined && parseToken(ctx.resumeFrom, ctx.syncName) !== undefined;
        return {
          details: { slot, exists: false },
          ...(started ? { warning: `replication slot ${slot} is gone: the next run stops with FERRY_SOURCE_POSITION_LOST; take a new snapshot with ferry run ${ctx.syncName} --full-refresh` } : {}),
        };
      }
      const over = info.lagBytes > ctx.options.lagWarnBytes;
      const lost = info.walStatus === 'lost';
      return {
        bytes: info.lagBytes,
        ...(info.replySeconds !== null ? { seconds: info.replySeconds } : {}),
        ...(lost
          ? { warning: `replication slot ${slot} has lost WAL it needed: the next run stops; take a new snapshot with --full-refresh` }
          : over
            ? { warning: `replication slot ${slot} holds back ${info.lagBytes} bytes of WAL (above lagWarnBytes ${ctx.options.lagWarnBytes}): run the sync (or keep ferry run --follow going), or the disk fills` }
            : {}),
        details: { slot, active: info.active, ...(info.confirmedFlush ? { confirmedFlush: info.confirmedFlush } : {}), ...(info.walStatus ? { walStatus: info.walStatus } : {}) },
      };
    });
  },

  /** `ferry state reset`: the slot goes (it holds WAL for a position ferry no longer has), and the publication if ferry created it. */
  async reset(ctx) {
    return withSql(ctx, async (sql) => {
      const { slot, publication } = namesOf(ctx.options, ctx.syncName);
      const done: string[] = [];
      if (await dropSlot(sql, slot)) done.push(`dropped replication slot ${slot}`);
      const comment = await sql.query<{ comment: string | null }>(`SELECT obj_description(oid, 'pg_publication') AS comment FROM pg_publication WHERE pubname = $1`, [publication]);
      const created = comment.rows[0]?.comment?.startsWith('ferry: created for sync ') === true;
      if (created && (await dropPublication(sql, publication))) done.push(`dropped publication ${publication}`);
      else if (comment.rows[0]) done.push(`kept publication ${publication} (ferry did not create it)`);
      return done;
    });
  },
});
