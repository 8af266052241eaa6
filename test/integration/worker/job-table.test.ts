/**
 * Claiming jobs from the queue on the local PostgreSQL, when a job waits
 * behind a running one of the same key: a sync (or a slice of a partitioned
 * sync) queued again while it runs. Such a job must not hold up the other
 * keys of its queue, nor hide other queues' work from a worker.
 */
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobTable } from '../../../src/worker/job-table.js';
import { PG_URL, dropSchemas, freshSchema } from '../../helpers/postgres.js';

describe('JobTable.claim and readyQueues with a key queued again while it runs', () => {
  const schema = freshSchema('ferry_jq');
  let boss: PgBoss;
  let jobs: JobTable;

  beforeAll(async () => {
    boss = new PgBoss({ connectionString: PG_URL, schema, supervise: false, schedule: false });
    await boss.start();
    jobs = new JobTable(boss, schema);
    for (const name of ['ferry-sync-orders', 'ferry-sync-a', 'ferry-sync-b', 'ferry-sync-c']) await boss.createQueue(name, { name, policy: 'stately' });
  });

  afterAll(async () => {
    await boss.stop({ graceful: false, wait: true });
    await dropSchemas(schema);
  });

  it('starts the other slices queued behind a slice that is queued again while it runs', async () => {
    const queue = 'ferry-sync-orders';
    await boss.send(queue, { slice: 0 }, { singletonKey: 'orders#0/2' });
    const running = await jobs.claim<{ slice: number }>(queue);
    expect(running?.data).toEqual({ slice: 0 });
    // The whole sync is queued again (a schedule, `run --queue`): slice 0 waits behind its running run, slice 1 can start.
    const again = await boss.send(queue, { slice: 0 }, { singletonKey: 'orders#0/2' });
    await boss.send(queue, { slice: 1 }, { singletonKey: 'orders#1/2' });
    expect(again).not.toBeNull();

    // pg-boss's own fetch tries the oldest waiting job first, cannot start it, and starts nothing.
    expect(await boss.fetch(queue)).toEqual([]);
    expect((await jobs.claim<{ slice: number }>(queue))?.data).toEqual({ slice: 1 });
    expect(await jobs.claim(queue)).toBeUndefined(); // slice 0 still running

    await boss.complete(queue, running!.id);
    const next = await jobs.claim<{ slice: number }>(queue);
    expect(next).toMatchObject({ id: again, data: { slice: 0 } });
  });

  it('does not list queues whose waiting jobs are all behind running ones, so they cannot crowd out work that can start', async () => {
    for (const name of ['ferry-sync-a', 'ferry-sync-b']) {
      await boss.send(name, {}, { singletonKey: name });
      expect(await jobs.claim(name)).toBeDefined();
      expect(await boss.send(name, {}, { singletonKey: name })).not.toBeNull(); // waits behind the running one
    }
    await boss.send('ferry-sync-c', {}, { singletonKey: 'c' });
    expect(await jobs.readyQueues(1)).toEqual(['ferry-sync-c']);
  });
});
