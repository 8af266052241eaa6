/**
 * One request-rate budget per API key, shared by every process whose state is
 * on the same PostgreSQL (workers, one-shot `ferry run`, `ferry export`):
 *
 * - the configured bound: a token bucket kept in one PostgreSQL row
 *   (`<state schema>.rate_budget`), refilled at `service.maxRequestsPerSecond`
 *   and holding at most one second of tokens (at least one token). Each
 *   worker takes tokens in small batches (one round trip per tenth of a
 *   second's worth), so the database sees a handful of statements per second
 *   per worker, not one per request;
 * - what was learnt (a {@link RateShare}): the service-wide limit found
 *   from 429s, in the same row (`learnt`, bumped `learnt_seq` on each cut),
 *   and one row per live process in `<state schema>.rate_holders` (what the
 *   service accepted of it, a heartbeat). Every quarter second a process
 *   that sent anything upserts its row and reads the others' (one
 *   statement). While no limit is known, one process (the holder of a
 *   lease in the key's row) runs the slow start and the others wait for the
 *   limit it finds; a process that starts, or is still searching, starts at
 *   its share of the limit found; a holder that comes or goes re-splits it;
 *   and a hold (the service refuses everything) reaches every process at
 *   its next beat (docs/sink.md, "Across processes").
 *
 * Rows are keyed by a hash of the API key: the key itself never reaches the database.
 */
import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { RequestGate } from '../api/client.js';
import type { RateShare, ShareMember } from '../sdk/transport/control/rate-share.js';
import type { LoadedConfig } from '../config/index.js';
import { FerryError } from '../sdk/errors.js';
import { parseStateUrl } from '../state/index.js';

/**
 * `granted` (tokens handed out so far, for operators and tests) and the
 * learnt limit's columns came after the table: add them to one made before.
 * Looked up first, so that a process starting does not take the table's
 * exclusive lock when it is there already.
 */
async function addLateColumns(db: Pick<pg.ClientBase, 'query'>, table: string): Promise<void> {
  if (await hasLateColumns(db, table)) return;
  await db.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS granted bigint NOT NULL DEFAULT 0`);
  await db.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS learnt double precision, ADD COLUMN IF NOT EXISTS learnt_seq bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS learnt_by text, ADD COLUMN IF NOT EXISTS held_until timestamptz,
    ADD COLUMN IF NOT EXISTS probe_by text, ADD COLUMN IF NOT EXISTS probe_until timestamptz`);
}

/** Whether the table exists with its late columns, and the holders' table beside it (false for no table: to_regclass gives null). */
async function hasLateColumns(db: Pick<pg.ClientBase, 'query'>, table: string): Promise<boolean> {
  // The catalog itself, not information_schema.columns: that view took about 5 ms per run that opens the budget.
  const { rowCount } = await db.query(
    `SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname IN ('granted', 'held_until', 'probe_until') AND NOT attisdropped AND to_regclass($2) IS NOT NULL`,
    [table, holdersOf(table)],
  );
  return (rowCount ?? 0) === 3;
}

/** The holders' table beside the budget's. */
function holdersOf(table: string): string {
  return table.replace(/\.rate_budget$/, '.rate_holders');
}

/**
 * Creates the table (and its late column) under an advisory lock held for the
 * transaction: `CREATE TABLE IF NOT EXISTS` run by two processes at once can
 * still fail in one of them (on the row type's name, 42710/23505), so workers
 * starting together take turns instead.
 */
async function createTable(pool: pg.Pool, schema: string, table: string): Promise<void> {
  // Made before, with its late column: one read instead of the lock's transaction (five round trips at every run's start).
  if (await hasLateColumns(pool, table)) return;
  // Imported here, like the driver: a run on SQLite state never loads either.
  const { inTransaction } = await import('../state/postgres/database.js');
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ferry-rate-budget-setup:${schema}`]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, tokens double precision NOT NULL, refilled_at timestamptz NOT NULL, granted bigint NOT NULL DEFAULT 0)`);
    await addLateColumns(client, table);
    await client.query(`CREATE TABLE IF NOT EXISTS ${holdersOf(table)} (key text NOT NULL, holder text NOT NULL, accepted double precision NOT NULL, seen_at timestamptz NOT NULL, PRIMARY KEY (key, holder))`);
  });
}

/** One service-wide cut per this long at most: the cuts each process's 429s make within it are the same overload. */
const CUT_EVERY_MS = 1000;
/** How often a process that sends tells the others what the service accepted of it, and reads theirs. */
const BEAT_MS = 250;
/** A holder whose last beat is older than this has stopped sending (or died): it drops out of the split. */
const LIVE_MS = 2000;
/** While no limit is known, the process holding the slow start's lease renews it at every beat; unrenewed this long, another may take it. */
const LEASE_MS = 2000;
/**
 * How long a control waits, while another process sends (its slow start
 * under way), for the limit it finds before running a slow start of its own:
 * the service may show no limit to find. Time before anyone sends (a run
 * still setting up) does not count, up to {@link WAIT_CAP_MS}.
 */
const WAIT_MS = 1000;
const WAIT_CAP_MS = 5000;
/** How often a process whose controls wait for the prober beats: the limit found reaches it within this. */
const WAIT_BEAT_MS = 50;
/**
 * A newcomer's controls hold their first requests until this long after it
 * opened the budget (wrote its row): the others make room at their next beat,
 * and requests sent at its share before that went on top of them.
 */
const ROOM_MS = BEAT_MS + 100;
/** A change in the number of this process's controls that send re-splits its share at most this often. */
const SPLIT_EVERY_MS = 1000;
/** A waiting control is held this long at a time, renewed at each beat (a process that stops beating is not held for ever). */
const HOLD_STEP_MS = 250;
/** Holders' rows older than this are deleted when a process opens the budget. */
const FORGET_MS = 60_000;
/**
 * A control settles this far below a limit it found (RateController), and
 * below its share of the learnt one: the learnt limit is what the service
 * accepted, not discounted again (twice 3 % below left four processes at
 * 0.94 of the bound, probing up from there a window of 20 answers at a time).
 */
const BELOW_LIMIT = 0.97;
/** Everyone got more accepted than the limit learnt by this much: the limit is raised to what they got (no cut). */
const ABOVE_LEARNT = 1.05;
/**
 * Beats in a row that must see that before the limit is raised: a count is
 * noisy (a burst, beats out of phase), and a limit raised by noise only
 * rises (a newcomer then starts at a share the service does not have).
 */
const ABOVE_BEATS = 4;
/** What a process tells the others it got accepted is counted over its last this many beats (a second): a beat's count of a few answers swings by half. */
const ACCEPTED_BEATS = 4;

/** What the last beat read of the other processes and the learnt limit. */
interface Snapshot {
  /** The service-wide limit learnt, requests per second (undefined: none yet). */
  learnt: number | undefined;
  seq: number;
  learntBy: string | null;
  /** Live holders other than this process that got anything accepted, and their accepted rate summed. */
  othersActive: number;
  othersAccepted: number;
  /** Live holders other than this process, sending or not (waiting for the prober, stalled on a Retry-After). */
  others: string[];
  /** The holder whose slow start finds the limit for everyone, while no limit is known and its lease runs (null: none). */
  prober: string | null;
  /** Until then (ms from the read) every process holds its new requests. */
  heldMs: number;
  /** When it was read (performance.now). */
  at: number;
}

interface Joined {
  ref: WeakRef<ShareMember>;
  admitted: number;
  accepted: number;
  /** Sent anything in the last beat (or just joined). */
  active: boolean;
  /** Held at join until the prober finds the limit (or gives up, see {@link WAIT_MS}). */
  wait?: { since: number; whileSending: number };
}

/** Tokens one worker takes per round trip: a tenth of a second's budget, at least one. */
function batchOf(ratePerSecond: number): number {
  return Math.max(1, Math.ceil(ratePerSecond / 10));
}

export class SharedRateBudget implements RequestGate, RateShare {
  private local = 0;
  private refill: Promise<void> | undefined;
  private readonly holders: string;
  private members: Joined[] = [];
  private snapshot: Snapshot;
  /** What the service accepted of this process over its last {@link ACCEPTED_BEATS} beats, per second. */
  private myAccepted = 0;
  private lastBeats: { accepted: number; ms: number }[] = [];
  private lastBeatAt = performance.now();
  private beating: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastCutAt = Number.NEGATIVE_INFINITY;
  private heldUntil = Number.NEGATIVE_INFINITY;
  private closed = false;
  /** Beats in a row in which everyone together got more accepted than the learnt limit allows. */
  private aboveBeats = 0;
  /** The other holders live at the last beat: one that comes or goes re-splits the limit. */
  private known: Set<string>;
  private waitBeat: NodeJS.Timeout | undefined;
  private readonly openedAt = performance.now();
  /** This process's controls that sent at the last re-split, and when it was. */
  private lastSending = 0;
  private lastSplitAt = Number.NEGATIVE_INFINITY;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly table: string,
    private readonly key: string,
    /** This process's row in the holders' table. */
    readonly holder: string,
    readonly ratePerSecond: number,
    snapshot: Snapshot,
  ) {
    this.holders = holdersOf(table);
    this.snapshot = snapshot;
    this.known = new Set(snapshot.others);
  }

  /** Opens the budget of `apiKey` in `schema` (the state schema), creating its table on first use. */
  static async open(url: string, schema: string, apiKey: string, ratePerSecond: number): Promise<SharedRateBudget> {
    // The driver is imported here, not with the module: a run on SQLite state never needs it.
    const { default: driver } = await import('pg');
    const pool = new driver.Pool({ connectionString: url, max: 1, application_name: 'ferry-rate-budget' });
    const table = `"${schema.replaceAll('"', '""')}".rate_budget`;
    const key = createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
    const holder = randomUUID();
    let snapshot: Snapshot;
    try {
      await createTable(pool, schema, table);
      await pool.query(`INSERT INTO ${table} (key, tokens, refilled_at) VALUES ($1, $2, clock_timestamp()) ON CONFLICT (key) DO NOTHING`, [key, Math.max(1, ratePerSecond)]);
      await pool.query(`DELETE FROM ${holdersOf(table)} WHERE key = $1 AND seen_at < clock_timestamp() - $2 * interval '1 millisecond'`, [key, FORGET_MS]);
      // Counted by the others from the start (a process waiting for the prober sends nothing, yet takes its share after).
      await upsertHolder(pool, holdersOf(table), key, holder, 0);
      // No limit known yet: one process runs the slow start for all (the first to take the lease).
      await claimProbe(pool, table, key, holder);
      snapshot = await readSnapshot(pool, table, key, holder);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new SharedRateBudget(pool, table, key, holder, ratePerSecond, snapshot);
  }

  /** The service-wide limit learnt so far (requests per second), as last read. */
  get learnt(): number | undefined {
    return this.snapshot.learnt;
  }

  join(member: ShareMember): () => void {
    const joined: Joined = { ref: new WeakRef(member), ...member.counts(), active: true };
    this.members.push(joined);
    const share = this.shareOfMember();
    if (share !== undefined) {
      member.adopt(share, 'start', this.part(share));
      const room = this.openedAt + ROOM_MS - performance.now();
      if (room > 0 && this.snapshot.othersActive > 0) member.holdFor(room);
    } else if (this.snapshot.prober !== this.holder || performance.now() - this.snapshot.at > LEASE_MS) {
      // Another process runs the slow start (or the lease is free and the next beat takes it): hold until the limit is found.
      joined.wait = { since: performance.now(), whileSending: 0 };
      member.holdFor(HOLD_STEP_MS);
      this.scheduleWaitBeat(0);
    }
    if (performance.now() - this.snapshot.at > BEAT_MS) void this.beat(true);
    this.timer ??= setInterval(() => void this.beat(false), BEAT_MS).unref();
    return () => {
      this.members = this.members.filter((m) => m !== joined);
    };
  }

  throttled(member: ShareMember, rate: number, holdMs?: number): void {
    const now = performance.now();
    // One cut per second service-wide: the 429s of one overload reach every process, and each one's cut is the same news.
    if (now - this.lastCutAt < CUT_EVERY_MS && holdMs === undefined) return;
    this.lastCutAt = now;
    const fresh = now - this.snapshot.at < LIVE_MS;
    const found = rate / BELOW_LIMIT;
    const mine = this.myAccepted > 0 ? this.myAccepted : found;
    const measured = mine + (fresh ? this.snapshot.othersAccepted : 0);
    // A 429 from a burst while everyone together sent less than the limit would ratchet it down, cut after cut:
    // a cut lowers a limit learnt before by a tenth at most (a limit that really fell is found again, a tenth lower each time).
    const before = this.snapshot.learnt;
    // The first limit found. By this process's slow start alone (the others waited for it): what it found, which counts
    // by when requests went over the episode, where a beat's count can hold the service's burst. Found by several at
    // once (their waits ran out): the others' rows may not show a whole beat of their sending yet, so at least what
    // this process found for each sending process (each found about its share).
    const sending = fresh ? this.snapshot.othersActive : 0;
    const first = sending === 0 ? found : Math.max(measured, found * (sending + 1));
    // The first limit is a slow start's estimate (from the rate it asked for, which a busy client may not have sent:
    // one read 167/s against a 100/s bucket): the first cut after it, from what everyone got accepted, replaces it.
    // (Not below what this process found for each live process: the others may have only just started at their shares.)
    const estimated = before !== undefined && this.snapshot.seq <= 1;
    const each = found * (this.snapshot.others.length + 1);
    const limit = before === undefined ? first : estimated ? Math.max(measured, Math.min(before, each)) : Math.min(before, Math.max(measured, before * 0.9));
    // The other controls of this process end their slow starts at once; other processes at their next beat.
    this.snapshot = { ...this.snapshot, learnt: limit, prober: null };
    const share = this.shareOfMember();
    // The first limit, found by this process's slow start while others waited for it: it comes down to its share too.
    const split = before === undefined && fresh && this.snapshot.others.length > 0;
    for (const joined of this.members) {
      const other = joined.ref.deref();
      if (other && share !== undefined && (split || other !== member)) other.adopt(share, split ? 'start' : 'limit', this.part(share));
    }
    void this.publishCut(limit, holdMs, before === undefined);
  }

  /** Tell the others of a cut; errors are dropped (each process still learns from its own answers). */
  private async publishCut(limit: number, holdMs: number | undefined, first: boolean): Promise<void> {
    try {
      // A first limit does not replace one another process set meanwhile (two slow starts at once): the next beat reads it.
      const { rows } = await this.pool.query<{ seq: string; learnt: number }>(
        `UPDATE ${this.table} SET learnt = CASE WHEN $5 AND learnt IS NOT NULL THEN learnt ELSE $2 END, learnt_seq = learnt_seq + 1, learnt_by = $3, probe_by = NULL, probe_until = NULL,
           held_until = CASE WHEN $4::float8 > 0 THEN GREATEST(COALESCE(held_until, clock_timestamp()), clock_timestamp() + $4::float8 * interval '1 millisecond') ELSE held_until END
         WHERE key = $1 RETURNING learnt_seq AS seq, learnt`,
        [this.key, limit, this.holder, holdMs ?? 0, first],
      );
      if (rows[0]) this.snapshot = { ...this.snapshot, learnt: Number(rows[0].learnt), seq: Number(rows[0].seq), learntBy: this.holder };
    } catch {
      // The share is what others learnt: without it this process still paces itself by its own answers.
    }
  }

  /**
   * This process's share of the learnt limit: an equal part among the live
   * holders, sending or not (one that waits for the prober, or sits out a
   * Retry-After, takes its part when it goes). Not what the others leave
   * unused: at a re-split they have just started or just been cut, and a
   * share taken from that went on top of them (one of four read 35/s of a
   * 100/s limit so, another 63/s of one left by three).
   */
  private shareOfProcess(): number | undefined {
    const { learnt, others } = this.snapshot;
    if (learnt === undefined) return undefined;
    if (performance.now() - this.snapshot.at >= LIVE_MS) return learnt;
    return learnt / (others.length + 1);
  }

  /** What part of the key's learnt limit a member's share is. */
  private part(share: number): number {
    const { learnt } = this.snapshot;
    return learnt === undefined ? 1 : share / learnt;
  }

  /** One control's part of the process's share: split among the controls that send. */
  private shareOfMember(): number | undefined {
    const share = this.shareOfProcess();
    if (share === undefined) return undefined;
    const sending = this.members.filter((m) => m.active && m.ref.deref() !== undefined).length;
    return share / Math.max(1, sending);
  }

  /**
   * Every quarter second while this process sends: upsert its row (what was
   * accepted of it, per second) and read the learnt limit and the other live
   * holders (one statement); adopt a cut made elsewhere, and a hold.
   */
  private beat(force: boolean): Promise<void> {
    if (this.beating || this.closed) return this.beating ?? Promise.resolve();
    const now = performance.now();
    let admitted = 0;
    let accepted = 0;
    const live: Joined[] = [];
    for (const joined of this.members) {
      const member = joined.ref.deref();
      if (!member) continue;
      live.push(joined);
      const counts = member.counts();
      joined.active = counts.admitted > joined.admitted;
      admitted += counts.admitted - joined.admitted;
      accepted += counts.accepted - joined.accepted;
      joined.admitted = counts.admitted;
      joined.accepted = counts.accepted;
    }
    this.members = live;
    const elapsed = Math.max(1, now - this.lastBeatAt);
    this.lastBeatAt = now;
    // Idle: no statement; its row goes stale and the others split the limit without it. Unless it holds the slow
    // start's lease: a run still setting up would lose it to another, and two would search at once.
    const probing = this.snapshot.learnt === undefined && this.snapshot.prober === this.holder;
    if (admitted === 0 && !force && !probing) return Promise.resolve();
    this.lastBeats.push({ accepted, ms: elapsed });
    if (this.lastBeats.length > ACCEPTED_BEATS) this.lastBeats.shift();
    this.myAccepted = (this.lastBeats.reduce((sum, b) => sum + b.accepted, 0) * 1000) / this.lastBeats.reduce((sum, b) => sum + b.ms, 0);
    this.beating = this.sync().finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async sync(): Promise<void> {
    let read: Snapshot;
    try {
      await upsertHolder(this.pool, this.holders, this.key, this.holder, this.myAccepted);
      // No limit known yet: renew this process's lease on the slow start, or take it when it is free.
      if (this.snapshot.learnt === undefined) await claimProbe(this.pool, this.table, this.key, this.holder);
      read = await readSnapshot(this.pool, this.table, this.key, this.holder);
    } catch {
      return; // as in publishCut
    }
    const before = this.snapshot;
    this.snapshot = read;
    const cut = read.seq !== before.seq && read.learntBy !== this.holder;
    if (cut) this.lastCutAt = performance.now();
    // A holder came or went: the limit is split again (a newcomer takes its share at once, so the others make room;
    // one that left leaves its share to them). Only on a change of who holds: a cut elsewhere lowers no one else.
    const now = performance.now();
    const sinceRead = now - before.at;
    const holdersChanged = read.others.length !== this.known.size || read.others.some((other) => !this.known.has(other));
    this.known = new Set(read.others);
    // Likewise when this process's controls that send change in number (a run's setup calls on the service client
    // stopped, a sync began): their part of the process's share was split among the controls that sent then. At most
    // once a second for that: a control sending now and then must not reset the others' windows at every beat.
    const sending = this.members.filter((m) => m.active).length;
    const membersChanged = sending !== this.lastSending && sending > 0 && now - this.lastSplitAt >= SPLIT_EVERY_MS;
    if (membersChanged || holdersChanged) this.lastSending = sending;
    const changed = holdersChanged || membersChanged;
    if (changed) this.lastSplitAt = now;
    const share = this.shareOfMember();
    for (const joined of this.members) {
      const member = joined.ref.deref();
      if (!member) continue;
      const wait = joined.wait;
      if (wait !== undefined) {
        if (read.othersActive > 0) wait.whileSending += sinceRead;
        if (share !== undefined) {
          // The prober found the limit: go at this process's share of it.
          joined.wait = undefined;
          member.release();
          member.adopt(share, 'start', this.part(share));
        } else if (read.prober === this.holder || wait.whileSending >= WAIT_MS || now - wait.since >= WAIT_CAP_MS) {
          // This process took the lease (the prober left, or none was there): its controls run the slow start. Or the
          // prober found nothing in a second of sending: the service may have no limit to find, each searches on its own.
          joined.wait = undefined;
          member.release();
        } else member.holdFor(HOLD_STEP_MS);
      } else if (share !== undefined && changed && read.learnt !== undefined) member.adopt(share, 'start', this.part(share));
      // A control still searching for the limit ends its slow start at its share of the one found elsewhere.
      else if (share !== undefined && joined.active) member.adopt(share, 'limit', this.part(share));
    }
    if (this.members.some((joined) => joined.wait !== undefined)) this.scheduleWaitBeat(WAIT_BEAT_MS);
    const heldUntil = read.at + read.heldMs;
    if (read.heldMs > 0 && heldUntil > this.heldUntil + 50) {
      this.heldUntil = heldUntil;
      for (const joined of this.members) joined.ref.deref()?.holdFor(read.heldMs);
    }
    // Everyone together got more accepted than the limit learnt, without a cut: the limit is at least that.
    const total = this.myAccepted + read.othersAccepted;
    this.aboveBeats = read.learnt !== undefined && total > read.learnt * ABOVE_LEARNT ? this.aboveBeats + 1 : 0;
    if (this.aboveBeats >= ABOVE_BEATS) {
      this.aboveBeats = 0;
      await this.pool.query(`UPDATE ${this.table} SET learnt = GREATEST(learnt, $2) WHERE key = $1`, [this.key, total]).catch(() => undefined);
      this.snapshot = { ...this.snapshot, learnt: Math.max(total, read.learnt ?? 0) };
    }
  }

  /** A beat in `ms` (forced: a control that waits sends nothing), unless one is due already. */
  private scheduleWaitBeat(ms: number): void {
    if (this.waitBeat || this.closed) return;
    this.waitBeat = setTimeout(() => {
      this.waitBeat = undefined;
      void this.beat(true).then(() => {
        // A beat already under way when this one was due: look again after it.
        if (this.members.some((joined) => joined.wait !== undefined)) this.scheduleWaitBeat(WAIT_BEAT_MS);
      });
    }, ms).unref();
  }

  /** Takes up to `wanted` tokens from the shared row; returns how many were granted (0 when it is empty). */
  async take(wanted: number): Promise<number> {
    const { rows } = await this.pool.query<{ granted: number }>(
      `WITH current AS (
         SELECT LEAST(GREATEST($2::float8, 1), tokens + EXTRACT(EPOCH FROM clock_timestamp() - refilled_at)::float8 * $2::float8) AS available
         FROM ${this.table} WHERE key = $1 FOR UPDATE
       )
       UPDATE ${this.table} t SET tokens = c.available - floor(LEAST(c.available, $3::float8)), refilled_at = clock_timestamp(),
         granted = t.granted + floor(LEAST(c.available, $3::float8))::bigint
       FROM current c WHERE t.key = $1
       RETURNING floor(LEAST(c.available, $3::float8))::int AS granted`,
      [this.key, this.ratePerSecond, wanted],
    );
    return rows[0]?.granted ?? 0;
  }

  /** Waits for one token of the shared budget. */
  async acquire(signal?: AbortSignal): Promise<void> {
    while (this.local <= 0) {
      signal?.throwIfAborted();
      this.refill ??= this.topUp().finally(() => (this.refill = undefined));
      await this.refill;
    }
    this.local -= 1;
  }

  private async topUp(): Promise<void> {
    let granted: number;
    try {
      granted = await this.take(batchOf(this.ratePerSecond));
    } catch (error) {
      throw new FerryError('FERRY_STATE_ERROR', `could not draw on the shared request budget: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
        hint: 'the budget lives in the state database; check that it is reachable',
      });
    }
    if (granted > 0) this.local += granted;
    // Empty: wait about as long as the bucket needs to refill one batch.
    else await new Promise((resolve) => setTimeout(resolve, Math.max(10, (1000 * batchOf(this.ratePerSecond)) / this.ratePerSecond)));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.waitBeat);
    await this.beating;
    // Out of the split at once, not when its beat goes stale; a lease on the slow start goes to the next that asks.
    await this.pool.query(`DELETE FROM ${this.holders} WHERE key = $1 AND holder = $2`, [this.key, this.holder]).catch(() => undefined);
    await this.pool.query(`UPDATE ${this.table} SET probe_by = NULL, probe_until = NULL WHERE key = $1 AND probe_by = $2`, [this.key, this.holder]).catch(() => undefined);
    await this.pool.end();
  }
}

/** This process's row: what the service accepted of it per second over its last beat, and that it is alive. */
async function upsertHolder(db: Pick<pg.ClientBase, 'query'>, holders: string, key: string, holder: string, accepted: number): Promise<void> {
  await db.query(
    `INSERT INTO ${holders} (key, holder, accepted, seen_at) VALUES ($1, $2, $3, clock_timestamp())
     ON CONFLICT (key, holder) DO UPDATE SET accepted = EXCLUDED.accepted, seen_at = EXCLUDED.seen_at`,
    [key, holder, accepted],
  );
}

/**
 * While the key has no limit learnt, one process runs the slow start for all:
 * `holder` takes the lease when it is free or lapsed (its prober closed, or
 * died and stopped renewing), or renews its own.
 */
async function claimProbe(db: Pick<pg.ClientBase, 'query'>, table: string, key: string, holder: string): Promise<void> {
  await db.query(
    `UPDATE ${table} SET probe_by = $2, probe_until = clock_timestamp() + $3 * interval '1 millisecond'
     WHERE key = $1 AND learnt IS NULL AND (probe_by IS NULL OR probe_by = $2 OR probe_until < clock_timestamp())`,
    [key, holder, LEASE_MS],
  );
}

/** The learnt limit and the other live holders of `key`, as the database has them now (`holder`: this process, left out). */
async function readSnapshot(db: Pick<pg.ClientBase, 'query'>, table: string, key: string, holder: string): Promise<Snapshot> {
  const at = performance.now();
  const { rows } = await db.query<{ learnt: number | null; seq: string; learnt_by: string | null; held_ms: number; active: number; accepted: number; others: string[]; prober: string | null }>(
    `SELECT b.learnt, b.learnt_seq AS seq, b.learnt_by,
       COALESCE(GREATEST(0, EXTRACT(EPOCH FROM b.held_until - clock_timestamp()) * 1000), 0)::float8 AS held_ms,
       CASE WHEN b.learnt IS NULL AND b.probe_until > clock_timestamp() THEN b.probe_by END AS prober,
       h.active, h.accepted, h.others
     FROM ${table} b,
       LATERAL (SELECT count(*) FILTER (WHERE accepted > 0)::int AS active, COALESCE(sum(accepted), 0)::float8 AS accepted,
                  COALESCE(array_agg(holder), '{}') AS others
                FROM ${holdersOf(table)} WHERE key = $1 AND holder <> $2 AND seen_at > clock_timestamp() - $3 * interval '1 millisecond') h
     WHERE b.key = $1`,
    [key, holder, LIVE_MS],
  );
  const row = rows[0];
  return {
    learnt: row?.learnt ?? undefined,
    seq: Number(row?.seq ?? 0),
    learntBy: row?.learnt_by ?? null,
    othersActive: row?.active ?? 0,
    othersAccepted: row?.accepted ?? 0,
    others: row?.others ?? [],
    prober: row?.prober ?? null,
    heldMs: row?.held_ms ?? 0,
    at,
  };
}

/**
 * The shared budget of the project's API key when its state is on PostgreSQL
 * (every process on that database then draws on it), else undefined: SQLite
 * state is one machine's, and the embedded emulator has no limit to share.
 * The state store must have been opened first (it creates the schema).
 */
export async function openSharedBudget(config: LoadedConfig): Promise<SharedRateBudget | undefined> {
  const location = parseStateUrl(config.state.url);
  if (location.kind !== 'postgres' || config.service.baseUrl === 'embedded') return undefined;
  return SharedRateBudget.open(location.url, config.state.schema ?? 'ferry', config.service.apiKey ?? '', config.service.maxRequestsPerSecond ?? 100_000);
}
