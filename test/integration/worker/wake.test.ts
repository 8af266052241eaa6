/**
 * A worker takes a job queued by `ferry run --queue` when it is queued, not
 * at its next poll: here the poll interval is ten minutes, so only the
 * queue's notification can start the run within the test.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StandInService } from '../../support/stand-in/service.js';
import { loadProject } from '../../../src/runtime/project.js';
import { createLogger } from '../../../src/runtime/logger.js';
import { enqueueRuns } from '../../../src/worker/enqueue.js';
import { startWorker } from '../../../src/worker/worker.js';
import type { RunningWorker } from '../../../src/worker/worker.js';
import { PG_URL, dropSchemas, freshSchema } from '../../helpers/postgres.js';

describe('waking a worker when a job is queued', () => {
  const schema = freshSchema('ferry_wk');
  let service: StandInService;
  let dir: string;
  let worker: RunningWorker | undefined;

  beforeAll(async () => {
    service = await new StandInService().start();
    dir = mkdtempSync(join(tmpdir(), 'ferry-wake-'));
    writeFileSync(join(dir, 'deals.csv'), 'id,stage\nd1,won\nd2,lost\n');
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service: { baseUrl: ${service.url}, apiKey: wake-test-key, maxRequestsPerSecond: 1000 }
state: { url: "${PG_URL}", schema: ${schema} }
syncs:
  - name: deals
    source: { type: csv, path: deals.csv, primaryKey: id }
    target: { type: row, source: { name: deals }, objectType: { name: deal }, map: { id: id, name: id, public: true, fields: { stage: stage } } }
`,
    );
  });

  afterAll(async () => {
    await worker?.stop();
    await service.close();
    await dropSchemas(schema, `${schema}_queue`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the run at once although the worker polls every ten minutes', async () => {
    const config = await loadProject(join(dir, 'ferry.yaml'));
    worker = await startWorker({ config, logger: createLogger({ level: 'warn' }), concurrency: 1, pollMs: 600_000 });
    // The worker has looked at the empty queue once and now sleeps until its next poll, or a notification.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [run] = await enqueueRuns(config, { names: ['deals'], wait: true, pollMs: 100 });
    expect(run?.outcome).toMatchObject({ status: 'succeeded', counts: { created: 2 } });
    expect(service.records.size).toBe(2);
  }, 60_000);
});
