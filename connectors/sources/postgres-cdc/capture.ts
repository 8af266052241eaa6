/**
 * One read of a capture: where to start (a new slot and its exported
 * snapshot, a snapshot to finish, or a stream position), the snapshot in
 * key-ordered chunks, then the slot's changes as records, until the stream
 * has caught up with the WAL position of the read's start (`ferry run`) or
 * until the run stops (`--follow`). What the run has stored is confirmed to
 * the slot as ferry announces it (ReadContext.onCheckpoint).
 */
import type pg from 'pg';
import { FerryError, type ReadContext, type SourceData, type SourceRecord, type SourceValue } from '../../../src/sdk/index.js';
import type { TableInfo } from '../_sql/columns.js';
import { quoteIdentifier } from '../_sql/identifiers.js';
import { keyPart } from '../_sql/values.js';
import { describeTable } from '../postgres/catalog.js';
import { typeParsers } from '../postgres/type-parsers.js';
import { cdcError, connect } from './connect.js';
import { namesOf, tablesOf, type PostgresCdcOptions } from './options.js';
import { formatLsn, parseLsn, type PgOutputMessage, type Relation, type TupleValue } from './pgoutput.js';
import { dropSlot, ensurePublication, missingFromPublication, slotInfo, currentDatabase } from './slot.js';
import { ReplicationStream } from './stream.js';
import { parseToken, tokenText, type CaptureToken } from './token.js';

const q = (name: string): string => quoteIdentifier(name, 'ansi');

/** How long a read that ended waits for the run's final checkpoint before it lets its replication connection go anyway. */
const FINAL_CHECKPOINT_WAIT_MS = 30_000;

export interface CapturedTable {
  name: string;
  info: TableInfo;
  keys: string[];
  /** Dropped columns already logged as impossible to read back (see reportGone). */
  goneLogged: Set<string>;
}

type Parser = (text: string) => unknown;

interface LiveRelation {
  relation: Relation;
  table: CapturedTable;
  parsers: Parser[];
}

/** What the capture yielded and how far the run has stored it: decides what may be confirmed to the slot. */
class Confirmations {
  stream: ReplicationStream | undefined;
  /** Transactions yielded whose end is not yet confirmed: their change count and end. */
  readonly committed = new Map<string, { n: number; end: bigint; at: number }>();
  lastYielded: string | undefined;
  lastStored: string | undefined;
  private finalCall: (() => void) | undefined;
  readonly final = new Promise<void>((resolve) => (this.finalCall = resolve));

  private stored: (() => void) | undefined;

  onCheckpoint(token: string | undefined, final: boolean): Promise<void> | undefined {
    if (token !== undefined) {
      this.lastStored = token;
      this.stored?.();
      const parsed = JSON.parse(token) as CaptureToken;
      if (parsed.phase === 'stream') {
        const txn = this.committed.get(parsed.txn);
        this.stream?.confirm(txn !== undefined && txn.n === parsed.n ? txn.end : parseLsn(parsed.lsn));
        for (const [key, entry] of this.committed) if (entry.end <= (this.stream?.confirmed ?? 0n)) this.committed.delete(key);
      }
      if (this.rest?.after === token) {
        this.stream?.confirm(this.rest.lsn);
        this.rest = undefined;
      }
    }
    if (!final) return undefined;
    this.finalCall?.();
    return this.stream?.close();
  }

  /**
   * Nothing of ours lies between the last record yielded and `lsn` (a
   * keepalive, a transaction of other tables): the slot may be confirmed to
   * `lsn` at once when everything yielded is stored, else once that last
   * record is. This is also how a finished snapshot shows in the slot: its
   * confirmed position passes the consistent point only after the last
   * snapshot row was stored (see where capture() resumes a snapshot token).
   */
  restAt(lsn: bigint): void {
    if (this.settled) {
      this.stream?.confirm(lsn);
      this.rest = undefined;
    } else if (!this.rest || lsn > this.rest.lsn) {
      this.rest = { lsn, after: this.lastYielded };
    }
  }

  private rest: { lsn: bigint; after: string | undefined } | undefined;

  /** Every record yielded has been stored. */
  get settled(): boolean {
    return this.lastYielded === undefined || this.lastYielded === this.lastStored;
  }

  /**
   * Waits (at most `ms`, or until the run stops) until every record yielded
   * has been stored: the run checkpoints while the read waits (it is idle),
   * so what came before a stop the source makes itself lands first. Whether
   * it did.
   */
  async untilSettled(signal: AbortSignal, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.settled && !signal.aborted && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.stored = undefined;
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
        signal.addEventListener('abort', done, { once: true });
        this.stored = done;
      });
    }
    return this.settled;
  }
}

export async function* capture(ctx: ReadContext<PostgresCdcOptions>): AsyncGenerator<SourceRecord> {
  const { options, logger } = ctx;
  const { slot, publication } = namesOf(options, ctx.syncName);
  const confirmations = new Confirmations();
  ctx.onCheckpoint?.((token, final) => confirmations.onCheckpoint(token, final));
  const sql = await connect(ctx, false);
  let repl: pg.Client | undefined;
  try {
    const tables = await describeTables(sql, ctx);
    const resume = parseToken(ctx.resumeFrom, ctx.syncName);
    repl = await connect(ctx, true);
    let start: { lsn: bigint; skip?: { txn: string; n: number } };
    if (!resume) {
      start = { lsn: yield* freshSnapshot(ctx, sql, repl, tables, { slot, publication }, confirmations) };
    } else {
      const confirmedFlush = await requireSlot(ctx, sql, resume, { slot, publication }, tables);
      if (resume.phase === 'snapshot' && (resume.last === true || (confirmedFlush !== undefined && confirmedFlush > parseLsn(resume.lsn)))) {
        // The snapshot finished: its last row landed (the token says so), or the slot was confirmed past its
        // consistent point, which happens only once every snapshot row was stored (Confirmations.restAt).
        // The stream merely had nothing of ours yet.
        start = { lsn: parseLsn(resume.lsn) };
      } else if (resume.phase === 'snapshot') {
        // The exported snapshot died with the killed run: the rest is read as the tables are now.
        await sql.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        let rows = 0;
        for await (const record of snapshotRows(ctx, sql, tables, resume.lsn, resume.table, resume.after, confirmations)) {
          rows++;
          yield record;
        }
        await sql.query('COMMIT');
        if (rows > 0) {
          logger.warn(
            { slot, rows, after: resume.after },
            `resumed an interrupted snapshot: ${rows} rows after the last landed one were read as they are now; the stream then replays the changes since the slot was created (rows already current cost no write)`,
          );
        }
        start = { lsn: parseLsn(resume.lsn) };
      } else {
        start = { lsn: parseLsn(resume.lsn), skip: { txn: resume.txn, n: resume.n } };
      }
    }
    // Drained when the stream reaches the WAL position of now (ferry run); never with --follow.
    const until = ctx.follow ? undefined : parseLsn((await sql.query<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn')).rows[0]!.lsn);
    const stream = new ReplicationStream(repl, slot, publication, start.lsn, options.statusIntervalMs);
    confirmations.stream = stream;
    repl = undefined; // the stream owns it now, and closes it after the final checkpoint
    yield* changes(ctx, sql, stream, tables, { slot, ...start, ...(until !== undefined ? { until } : {}) }, confirmations);
  } catch (error) {
    throw cdcError(ctx, error, `${options.schema}.${tablesOf(options).join(',')}`);
  } finally {
    await sql.end().catch(() => undefined);
    await repl?.end().catch(() => undefined);
    releaseAfterFinal(ctx, confirmations);
  }
}

/** The replication connection stays for the run's final checkpoint (to confirm it), or goes after a wait when none comes. */
function releaseAfterFinal(ctx: ReadContext<PostgresCdcOptions>, confirmations: Confirmations): void {
  const stream = confirmations.stream;
  if (!stream) return;
  if (!ctx.onCheckpoint) {
    void stream.close();
    return;
  }
  const timer = setTimeout(() => void stream.close(), FINAL_CHECKPOINT_WAIT_MS);
  timer.unref();
  void confirmations.final.then(() => clearTimeout(timer));
}

async function describeTables(sql: pg.Client, ctx: ReadContext<PostgresCdcOptions>): Promise<CapturedTable[]> {
  const { options } = ctx;
  const configured = options.primaryKey === undefined ? undefined : Array.isArray(options.primaryKey) ? options.primaryKey : [options.primaryKey];
  const tables: CapturedTable[] = [];
  for (const name of tablesOf(options)) {
    const info = await describeTable(sql, name, options.schema);
    if (!info) {
      throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `sync "${ctx.syncName}": table ${options.schema}.${name} does not exist`, {
        where: `sync ${ctx.syncName}`,
        hint: 'check table: and schema: under source:',
      });
    }
    const keys = configured ?? info.primaryKey;
    if (keys.length === 0) {
      throw new FerryError('FERRY_CONFIG_INVALID', `sync "${ctx.syncName}": table ${options.schema}.${name} has no primary key`, {
        where: `sync ${ctx.syncName}`,
        hint: 'name the key column(s) with primaryKey: under source: (a delete carries only the replica identity: give the table a primary key, or REPLICA IDENTITY FULL)',
      });
    }
    for (const key of keys) {
      if (!info.columns.some((c) => c.name === key)) {
        throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `sync "${ctx.syncName}": primary key column "${key}" is not a column of ${options.schema}.${name}`, { where: `sync ${ctx.syncName}` });
      }
    }
    tables.push({ name, info, keys, goneLogged: new Set() });
  }
  return tables;
}

/** A new slot with its exported snapshot, the snapshot read in it; returns the slot's consistent point. */
async function* freshSnapshot(
  ctx: ReadContext<PostgresCdcOptions>,
  sql: pg.Client,
  repl: pg.Client,
  tables: CapturedTable[],
  names: { slot: string; publication: string },
  confirmations: Confirmations,
): AsyncGenerator<SourceRecord, bigint> {
  const { options, logger } = ctx;
  if (await dropSlot(sql, names.slot)) logger.warn({ slot: names.slot }, 'dropped the existing replication slot: a new snapshot starts (first run for this state, or --full-refresh)');
  if (await ensurePublication(sql, names.publication, options.schema, tables.map((t) => t.name))) {
    await sql.query(`COMMENT ON PUBLICATION ${q(names.publication)} IS ${sqlText(`ferry: created for sync ${ctx.syncName}`)}`);
    logger.info({ publication: names.publication }, 'created the publication');
  } else {
    await requirePublished(ctx, sql, names.publication, tables);
  }
  const created = await repl.query<{ consistent_point: string; snapshot_name: string }>(`CREATE_REPLICATION_SLOT "${names.slot}" LOGICAL pgoutput EXPORT_SNAPSHOT`);
  const { consistent_point: lsn, snapshot_name: snapshot } = created.rows[0]!;
  logger.info({ slot: names.slot, lsn }, 'created the replication slot; reading the snapshot it exported');
  // The exported snapshot lives as long as the replication connection runs nothing else: the whole snapshot reads in it.
  await sql.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  await sql.query(`SET TRANSACTION SNAPSHOT ${sqlText(snapshot)}`);
  yield* snapshotRows(ctx, sql, tables, lsn, 0, undefined, confirmations);
  await sql.query('COMMIT');
  return parseLsn(lsn);
}

/** A resumed read needs its slot (a lost one is never skipped over) and the publication. Returns the slot's confirmed position. */
async function requireSlot(ctx: ReadContext<PostgresCdcOptions>, sql: pg.Client, resume: CaptureToken, names: { slot: string; publication: string }, tables: CapturedTable[]): Promise<bigint | undefined> {
  const info = await slotInfo(sql, names.slot);
  const lost = (why: string): FerryError =>
    new FerryError('FERRY_SOURCE_POSITION_LOST', `sync "${ctx.syncName}": cannot resume the change stream: ${why}. The changes since the last run may be gone, so ferry stops rather than skip them`, {
      where: `sync ${ctx.syncName}`,
      hint: `take a new snapshot: ferry run ${ctx.syncName} --full-refresh (it creates the slot again; records deleted meanwhile stay in the service); see docs/cdc.md, "A lost slot"`,
    });
  if (resume.slot !== names.slot) throw lost(`the position was stored for slot "${resume.slot}", and the sync now names slot "${names.slot}"`);
  if (!info) throw lost(`replication slot "${names.slot}" does not exist (dropped by hand, or invalidated by max_slot_wal_keep_size)`);
  if (info.walStatus === 'lost') throw lost(`replication slot "${names.slot}" has lost WAL it needed (max_slot_wal_keep_size)`);
  if (info.plugin !== 'pgoutput') throw lost(`replication slot "${names.slot}" uses plugin ${info.plugin}, not pgoutput`);
  const database = await currentDatabase(sql);
  if (info.database !== database) throw lost(`replication slot "${names.slot}" belongs to database ${info.database}, not ${database}`);
  await requirePublished(ctx, sql, names.publication, tables);
  return info.confirmedFlush === null ? undefined : parseLsn(info.confirmedFlush);
}

async function requirePublished(ctx: ReadContext<PostgresCdcOptions>, sql: pg.Client, publication: string, tables: CapturedTable[]): Promise<void> {
  const missing = await missingFromPublication(sql, publication, ctx.options.schema, tables.map((t) => t.name));
  const hint = `ALTER PUBLICATION ${publication} ADD TABLE …, or name another publication: under source:`;
  if (missing === undefined) {
    throw new FerryError('FERRY_SOURCE_OBJECT_MISSING', `sync "${ctx.syncName}": publication "${publication}" does not exist (dropped since the last run?)`, {
      where: `sync ${ctx.syncName}`,
      hint: `create it again (CREATE PUBLICATION ${publication} FOR TABLE …) and run ferry run ${ctx.syncName} --full-refresh: changes made while it was missing were not published`,
    });
  }
  if (missing.length > 0) {
    throw new FerryError('FERRY_CONFIG_INVALID', `sync "${ctx.syncName}": publication "${publication}" does not include ${missing.map((t) => `${ctx.options.schema}.${t}`).join(', ')}`, { where: `sync ${ctx.syncName}`, hint });
  }
}

function sqlText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function originOf(schema: string, table: string, key: string): SourceRecord['origin'] {
  return { stream: `${schema}.${table}`, table: `${schema}.${table}`, key };
}

function keyText(data: SourceData, keys: readonly string[]): string {
  return keys.map((name) => keyPart(data[name])).join('\u001f');
}

/**
 * The snapshot from table `fromTable` (after key `after` in it), in
 * key-ordered chunks of `snapshotChunkRows`. The last row of the whole
 * snapshot carries `last` in its token, so a run that stored it does not
 * take the snapshot for interrupted. Each row is noted as yielded before it
 * goes (Confirmations.lastYielded): nothing is confirmed to the slot while a
 * snapshot row is not yet stored.
 */
async function* snapshotRows(
  ctx: ReadContext<PostgresCdcOptions>,
  sql: pg.Client,
  tables: CapturedTable[],
  lsn: string,
  fromTable: number,
  after: string[] | undefined,
  confirmations: Confirmations,
): AsyncGenerator<SourceRecord> {
  const { options, signal } = ctx;
  const slot = namesOf(options, ctx.syncName).slot;
  const chunk = options.snapshotChunkRows;
  const query = (table: CapturedTable, from: string[] | undefined, select: string, limit: number) => {
    const order = table.keys.map(q).join(', ');
    const casts = table.keys.map((key) => table.info.columns.find((c) => c.name === key)?.castType ?? 'text');
    const where = from ? `WHERE (${order}) > (${casts.map((cast, i) => `$${i + 1}::${cast}`).join(', ')})` : '';
    return { text: `SELECT ${select} FROM ${q(options.schema)}.${q(table.name)} ${where} ORDER BY ${order} LIMIT ${limit}`, values: from ?? [] };
  };
  // The last table with rows to read: its last row is the snapshot's last.
  let lastTable = -1;
  for (let t = tables.length - 1; t >= fromTable && lastTable < 0; t--) {
    const probe = await sql.query(query(tables[t]!, t === fromTable ? after : undefined, '1', 1));
    if (probe.rows.length > 0) lastTable = t;
  }
  for (let t = fromTable; t <= lastTable; t++) {
    const table = tables[t]!;
    let from = t === fromTable ? after : undefined;
    for (;;) {
      if (signal.aborted) return;
      // One row more than a chunk: whether another chunk follows.
      const result = await sql.query<Record<string, SourceValue>>(query(table, from, '*', chunk + 1));
      const more = result.rows.length > chunk;
      const rows = more ? result.rows.slice(0, chunk) : result.rows;
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        from = table.keys.map((key) => keyPart(row[key]));
        const last = t === lastTable && !more && i === rows.length - 1;
        const token: CaptureToken = { v: 1, phase: 'snapshot', slot, lsn, table: t, after: from, ...(last ? { last: true } : {}) };
        const text = tokenText(token);
        confirmations.lastYielded = text;
        yield { data: row, origin: originOf(options.schema, table.name, from.join('\u001f')), checkpoint: text };
      }
      if (!more) break;
    }
  }
}

/** The slot's changes as records, from `start.lsn`, skipping the changes of `start.skip` already landed. */
async function* changes(
  ctx: ReadContext<PostgresCdcOptions>,
  sql: pg.Client,
  stream: ReplicationStream,
  tables: CapturedTable[],
  start: { slot: string; lsn: bigint; skip?: { txn: string; n: number }; until?: bigint },
  confirmations: Confirmations,
): AsyncGenerator<SourceRecord> {
  const { options, logger, signal } = ctx;
  const relations = new Map<number, LiveRelation>();
  const byName = new Map(tables.map((t) => [t.name, t]));
  let resumeAt = start.lsn;
  let txn: { final: bigint; text: string; n: number; at: number } | undefined;
  let lagWarned = false;
  let lastLagReport = 0;
  const reportLag = (): void => {
    const now = Date.now();
    if (now - lastLagReport < 1000) return;
    lastLagReport = now;
    const bytes = Number(stream.serverLsn > stream.confirmed ? stream.serverLsn - stream.confirmed : 0n);
    let oldest: number | undefined;
    for (const entry of confirmations.committed.values()) if (entry.end > stream.confirmed) oldest = Math.min(oldest ?? entry.at, entry.at);
    const seconds = oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000);
    const warning = bytes > options.lagWarnBytes ? `slot ${start.slot} holds back ${bytes} bytes of WAL (above lagWarnBytes ${options.lagWarnBytes})` : undefined;
    ctx.reportLag?.({ bytes, seconds, ...(warning ? { warning } : {}), details: { slot: start.slot } });
    if (warning && !lagWarned) logger.warn({ slot: start.slot, bytes }, `${warning}: the service or ferry is not keeping up`);
    lagWarned = warning !== undefined;
  };

  for (;;) {
    const frame = await stream.next(signal);
    if (frame === undefined) return;
    reportLag();
    if (frame.tag === 'keepalive') {
      // What the server has decoded up to here needs nothing from ferry beyond what it yielded.
      if (txn === undefined) confirmations.restAt(frame.walEnd);
      if (start.until !== undefined && txn === undefined && frame.walEnd >= start.until) return;
      continue;
    }
    const message: PgOutputMessage = frame.message;
    switch (message.tag) {
      case 'begin':
        txn = { final: message.finalLsn, text: formatLsn(message.finalLsn), n: 0, at: message.commitTimeMs };
        break;
      case 'commit': {
        if (txn && txn.n > 0) confirmations.committed.set(txn.text, { n: txn.n, end: message.endLsn, at: txn.at });
        // A transaction with nothing of ours: once everything before it landed, its end needs nothing from ferry.
        if (txn && txn.n === 0) confirmations.restAt(message.endLsn);
        resumeAt = message.endLsn;
        txn = undefined;
        if (start.until !== undefined && message.endLsn >= start.until) return;
        break;
      }
      case 'relation': {
        const table = message.relation.schema === options.schema ? byName.get(message.relation.name) : undefined;
        if (!table) break;
        const previous = relations.get(message.relation.id);
        if (previous && previous.relation.columns.map((c) => `${c.name}:${c.typeOid}`).join() !== message.relation.columns.map((c) => `${c.name}:${c.typeOid}`).join()) {
          logger.info({ table: table.name, columns: message.relation.columns.map((c) => c.name) }, 'the table changed shape: records follow its new columns (the object type evolves as the sync declares)');
        }
        relations.set(message.relation.id, {
          relation: message.relation,
          table,
          parsers: message.relation.columns.map((c) => typeParsers.getTypeParser(c.typeOid, 'text') as Parser),
        });
        break;
      }
      case 'insert':
      case 'update':
      case 'delete': {
        const live = relations.get(message.relationId);
        if (!live || !txn) break;
        txn.n++;
        if (start.skip && start.skip.txn === txn.text && txn.n <= start.skip.n) break;
        const token = tokenText({ v: 1, phase: 'stream', slot: start.slot, lsn: formatLsn(resumeAt), txn: txn.text, n: txn.n });
        for (const record of await recordsOf(ctx, sql, live, message)) {
          record.checkpoint = token;
          confirmations.lastYielded = token;
          yield record;
        }
        break;
      }
      case 'truncate': {
        const hit = message.relationIds.map((id) => relations.get(id)).filter((r): r is LiveRelation => r !== undefined);
        if (hit.length === 0) break;
        const names = hit.map((r) => `${r.relation.schema}.${r.relation.name}`).join(', ');
        if (options.onTruncate === 'ignore') {
          logger.warn({ tables: names }, `TRUNCATE of ${names} ignored (onTruncate: ignore): the service keeps the records it had`);
          for (const r of hit) ctx.reportSkipped?.({ action: 'skipped', origin: { table: `${r.relation.schema}.${r.relation.name}` }, reason: 'TRUNCATE ignored (onTruncate: ignore)' });
          break;
        }
        // The run lands and stores what came before the TRUNCATE while the read waits here; the next run stops at it again.
        const landed = await confirmations.untilSettled(signal, FINAL_CHECKPOINT_WAIT_MS);
        const before = landed ? 'the changes before it landed' : 'the changes before it that had not landed yet are read again by the next run';
        throw new FerryError('FERRY_SOURCE_READ_FAILED', `sync "${ctx.syncName}": ${names} was truncated (transaction committed at ${txn?.text ?? '?'}); onTruncate: fail stops here, ${before}`, {
          where: `sync ${ctx.syncName}`,
          hint: `to mirror it, take a new snapshot: ferry state reset ${ctx.syncName} (the service keeps what it has) and ferry run ${ctx.syncName}; or set onTruncate: ignore to pass over it`,
        });
      }
      default:
        break;
    }
  }
}

/**
 * A change as records: an upsert with the new row (TOASTed values it left
 * out filled in), or a delete with the old key; an update that changed the
 * key is the old key's delete, then the new row.
 */
async function recordsOf(ctx: ReadContext<PostgresCdcOptions>, sql: pg.Client, live: LiveRelation, message: Extract<PgOutputMessage, { tag: 'insert' | 'update' | 'delete' }>): Promise<SourceRecord[]> {
  const { relation, table } = live;
  const { schema } = ctx.options;
  if (message.tag === 'delete') {
    const data = rowOf(live, message.old, message.oldIsKey);
    return [{ data, origin: originOf(schema, table.name, keyText(data, table.keys)), op: 'delete' }];
  }
  const data = rowOf(live, message.next, false);
  const records: SourceRecord[] = [];
  const old = message.tag === 'update' && message.old ? rowOf(live, message.old, message.oldIsKey === true) : undefined;
  const key = keyText(data, table.keys);
  if (old && table.keys.every((k) => k in old) && keyText(old, table.keys) !== key) {
    records.push({ data: old, origin: originOf(schema, table.name, keyText(old, table.keys)), op: 'delete' });
  }
  const missing = relation.columns.filter((_, i) => message.next[i]?.kind === 'unchanged').map((c) => c.name);
  if (missing.length > 0) {
    // An unchanged TOASTed value: the old row has it under REPLICA IDENTITY FULL, else the table's current row does.
    const full = message.tag === 'update' && message.oldIsKey === false ? old : undefined;
    const fromOld = missing.filter((name) => full !== undefined && name in full);
    for (const name of fromOld) data[name] = full![name]!;
    const rest = missing.filter((name) => !fromOld.includes(name));
    if (rest.length > 0) {
      const current = await currentValues(sql, schema, table, data, rest);
      // Deleted since: the delete follows in the stream.
      if (!current) return records;
      Object.assign(data, current.values);
      if (current.gone.length > 0) reportGone(ctx, table, current.gone, originOf(schema, table.name, key));
    }
  }
  records.push({ data, origin: originOf(schema, table.name, key) });
  return records;
}

function rowOf(live: LiveRelation, values: readonly TupleValue[], keyOnly: boolean): Record<string, SourceValue> {
  const data: Record<string, SourceValue> = {};
  const { columns } = live.relation;
  for (let i = 0; i < columns.length; i++) {
    const value = values[i];
    const column = columns[i]!;
    if (!value || value.kind === 'unchanged') continue;
    // A key-only old tuple holds NULL for every column outside the key: leave them out.
    if (value.kind === 'null') {
      if (!keyOnly || column.key) data[column.name] = null;
      continue;
    }
    data[column.name] = live.parsers[i]!(value.text) as SourceValue;
  }
  return data;
}

/**
 * The current values of `columns` in the table's row with the record's key
 * (unchanged TOASTed values the WAL left out). A column dropped since the
 * change was made cannot be read back: it is named in `gone`, and left out.
 */
async function currentValues(sql: pg.Client, schema: string, table: CapturedTable, data: SourceData, columns: string[]): Promise<{ values: Record<string, SourceValue>; gone: string[] } | undefined> {
  const casts = table.keys.map((key) => table.info.columns.find((c) => c.name === key)?.castType ?? 'text');
  const read = async (names: string[]): Promise<Record<string, SourceValue> | undefined> => {
    const result = await sql.query<Record<string, SourceValue>>({
      text: `SELECT ${names.length > 0 ? names.map(q).join(', ') : '1 AS found'} FROM ${q(schema)}.${q(table.name)} WHERE (${table.keys.map(q).join(', ')}) = (${casts.map((cast, i) => `$${i + 1}::${cast}`).join(', ')})`,
      values: table.keys.map((key) => keyPart(data[key])),
    });
    return result.rows[0];
  };
  try {
    const values = await read(columns);
    return values && { values, gone: [] };
  } catch (error) {
    if ((error as { code?: unknown }).code !== '42703') throw error; // undefined_column
  }
  const existing = await sql.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attname = ANY($2::text[])`,
    [`${q(schema)}.${q(table.name)}`, columns],
  );
  const present = new Set(existing.rows.map((r) => r.name));
  const values = await read(columns.filter((c) => present.has(c)));
  if (!values) return undefined;
  delete values.found;
  return { values, gone: columns.filter((c) => !present.has(c)) };
}

/** A TOASTed value the record goes without (its column was dropped before ferry read it back): counted for each record, logged once a column. */
function reportGone(ctx: ReadContext<PostgresCdcOptions>, table: CapturedTable, gone: string[], origin: SourceRecord['origin']): void {
  const reason = `the unchanged large value of ${gone.join(', ')} is left out: the column no longer exists, so it cannot be read back`;
  ctx.reportSkipped?.({ action: 'repaired', origin, reason });
  const fresh = gone.filter((c) => !table.goneLogged.has(c));
  if (fresh.length === 0) return;
  for (const c of fresh) table.goneLogged.add(c);
  ctx.logger.warn(
    { table: `${ctx.options.schema}.${table.name}`, columns: fresh, key: origin.key },
    `an update left the large (TOASTed) value of ${fresh.join(', ')} unchanged, and the column was dropped before ferry read it back (no longer exists): such records go without it (counted as repaired; REPLICA IDENTITY FULL makes the WAL carry the value)`,
  );
}
