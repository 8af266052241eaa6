/**
 * One request-rate budget per API key, shared by every worker: a token bucket
 * kept in one PostgreSQL row (`<state schema>.rate_budget`), refilled at
 * `service.maxRequestsPerSecond` and holding at most one second of tokens
 * (at least one token).
 * Each worker takes tokens in small batches (one round trip per tenth of a
 * second's worth), so the database sees a handful of statements per second
 * per worker, not one per request. The row is keyed by a hash of the API key:
 * the key itself never reaches the database.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { ServiceClient } from '../api/client.js';

/** Tokens one worker takes per round trip: a tenth of a second's budget, at least one. */
function batchOf(ratePerSecond: number): number {
  return Math.max(1, Math.ceil(ratePerSecond / 10));
}

export class SharedRateBudget {
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
    const pool = new pg.Pool({ connectionString: url, max: 1, application_name: 'ferry-rate-budget' });
    const table = `"${schema.replaceAll('"', '""')}".rate_budget`;
    const key = createHash('sha256').update(apiKey).digest('hex').slice(0, 32);
    try {
      try {
        await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, tokens double precision NOT NULL, refilled_at timestamptz NOT NULL)`);
      } catch (error) {
        // Two workers creating the table at once: one wins, the other sees it exist.
        if (!['23505', '42P07'].includes((error as { code?: string }).code ?? '')) throw error;
      }
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
       UPDATE ${this.table} t SET tokens = c.available - floor(LEAST(c.available, $3::float8)), refilled_at = clock_timestamp()
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
    const granted = await this.take(batchOf(this.ratePerSecond));
    if (granted > 0) this.local += granted;
    // Empty: wait about as long as the bucket needs to refill one batch.
    else await new Promise((resolve) => setTimeout(resolve, Math.max(10, (1000 * batchOf(this.ratePerSecond)) / this.ratePerSecond)));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** The calls the sink makes (its service port); each is one request to the service. */
const SINK_CALLS = new Set<string>([
  'listSources', 'createSource', 'listObjectTypes', 'createObjectType', 'updateObjectType',
  'createConversation', 'createMessage', 'createRow', 'createDocument',
  'deleteConversation', 'deleteMessage', 'deleteRow', 'deleteDocument',
] satisfies (keyof ServiceClient)[]);

/** The sink's service with every call waiting for a token of the shared budget first (retries included). */
export function budgetedService<Service extends ServiceClient>(service: Service, budget: SharedRateBudget): Service {
  return new Proxy(service, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || !SINK_CALLS.has(property)) return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]) => {
        await budget.acquire();
        return method.apply(target, args);
      };
    },
  });
}
