/**
 * The request-rate budget workers share per API key, on the local
 * PostgreSQL: one row per key (hashed), drawn on by every worker.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SharedRateBudget } from '../../../src/worker/rate-budget.js';
import { PG_URL, dropSchemas, freshSchema, pgQuery } from '../../helpers/postgres.js';

describe('SharedRateBudget', () => {
  const schema = freshSchema('ferry_rb');
  const open: SharedRateBudget[] = [];
  afterAll(async () => {
    for (const budget of open) await budget.close();
    await dropSchemas(schema);
  });

  it('is one bucket per API key across workers, and never stores the key', async () => {
    await pgQuery(`CREATE SCHEMA "${schema}"`);
    // A slow refill (one token per 20 s): what one worker took, another cannot take again.
    const [a, b, other] = await Promise.all([
      SharedRateBudget.open(PG_URL, schema, 'key-one-secret', 0.05),
      SharedRateBudget.open(PG_URL, schema, 'key-one-secret', 0.05),
      SharedRateBudget.open(PG_URL, schema, 'key-two-secret', 0.05),
    ]);
    open.push(a!, b!, other!);
    expect(await a!.take(5)).toBe(1);
    expect(await b!.take(5)).toBe(0);
    expect(await other!.take(5)).toBe(1);
    const rows = await pgQuery<{ key: string }>(`SELECT key FROM "${schema}".rate_budget`);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.key).join()).not.toContain('secret');
  });

  it('hands out whole tokens from a full bucket of one second', async () => {
    const budget = await SharedRateBudget.open(PG_URL, schema, 'key-three', 50);
    open.push(budget);
    const granted = await budget.take(500);
    expect(granted).toBeGreaterThanOrEqual(50);
    expect(granted).toBeLessThanOrEqual(51);
    expect(Number.isInteger(granted)).toBe(true);
  });
});
