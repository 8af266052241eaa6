/**
 * One request-rate budget per API key, shared by every process whose state is
 * on the same PostgreSQL (workers, one-shot `ferry run`, `ferry export`): a token bucket
 * kept in one PostgreSQL row (`<state schema>.rate_budget`), refilled at
 * `service.maxRequestsPerSecond` and holding at most one second of tokens
 * (at least one token).
 * Each worker takes tokens in small batches (one round trip per tenth of a
 * second's worth), so the database sees a handful of statements per second
 * per worker, not one per request. The row is keyed by a hash of the API key:
 * the key itself never reaches the database.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { RequestGate } from '../api/client.js';
import type { LoadedConfig } from '../config/index.js';
import { FerryError } from '../sdk/errors.js';
import { parseStateUrl } from '../state/index.js';

/**
 * `granted` (tokens handed out so far, for operators and tests) came after
 * the table: add it to one made before. Looked up first, so that a process
 * starting does not take the table's exclusive lock when it is there already.
 */
async function addGrantedColumn(db: Pick<pg.ClientBase, 'query'>, table: string): Promise<void> {
  if (!(await hasGrantedColumn(db, table))) await db.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS granted bigint NOT NULL DEFAULT 0`);
}

/** Whether the table exists and has its late column (false for no table: to_regclass gives null). */
async function hasGrantedColumn(db: Pick<pg.ClientBase, 'query'>, table: string): Promise<boolean> {
  // The catalog itself, not information_schema.columns: that view took about 5 ms per run that opens the budget.
  const { rowCount } = await db.query(`SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'granted' AND NOT attisdropped`, [table]);
  return (rowCount ?? 0) > 0;
}

/**
 * Creates the table (and its late column) under an advisory lock held for the
 * transaction: `CREATE TABLE IF NOT EXISTS` run by two processes at once can
 * still fail in one of them (on the row type's name, 42710/23505), so workers
 * starting together take turns instead.
 */
async function createTable(pool: pg.Pool, schema: string, table: string): Promise<void> {
  // Made before, with its late column: one read instead of the lock's transaction (five round trips at every run's start).
  if (await hasGrantedColumn(pool, table)) return;
  // Imported here, like the driver: a run on SQLite state never loads either.
  const { inTransaction } = await import('../state/postgres/database.js');
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`ferry-rate-budget-setup:${schema}`]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, tokens double precision NOT NULL, refilled_at timestamptz NOT NULL, granted bigint NOT NULL DEFAULT 0)`);
    await addGrantedColumn(client, table);
  });
}

/** Tokens one worker takes per round trip: a tenth of a second's budget, at least one. */
function batchOf(ratePerSecond: number): number {
  return Math.max(1, Math.ceil(ratePerSecond / 10));
}

export class SharedRateBudget implements RequestGate {
  private local = 0;
  private refill: Promise<void> | undefined;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly table: string,
    private readonly key: string,
    readonly ratePerSecond: number,
  ) {}

  /** Opens the budget of `apiKey` in `schema` (the state schema), creating its table on first use. */
  static async open(url: string, schema: string, apiKey: string, ratePerSecond: number): Promise<SharedRateBudget> {
    // The driver is imported here, not with the module: a run on SQLite state never needs it.
    const { default: driver } = await import('pg');
    const pool = new driver.Pool({ connectionString: url, max: 1, application_name: 'ferry-rate-budget' });
    const table = `"${schema.replaceAll('"', '""')}".rate_budget`;
    const key = createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
    try {
      await createTable(pool, schema, table);
      await pool.query(`INSERT INTO ${table} (key, tokens, refilled_at) VALUES ($1, $2, clock_timestamp()) ON CONFLICT (key) DO NOTHING`, [key, Math.max(1, ratePerSecond)]);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new SharedRateBudget(pool, table, key, ratePerSecond);
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
    await this.pool.end();
  }
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
