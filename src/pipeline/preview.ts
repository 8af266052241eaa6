/**
 * `ferry preview`: a dry run of one sync that keeps the first N mapped
 * records beside their source records, and a plan of what a real run would
 * do (creates, updates, unchanged, invalid, deletes, schema changes).
 */
import { FerryError } from '../sdk/errors.js';
import { createLogger } from '../runtime/logger.js';
import { prepareSync, selectSyncs } from './prepare.js';
import { loadProject, openProjectState } from '../runtime/project.js';
import { runSync } from './run-sync.js';
import type { RunOptions, RunSummary } from './run-sync.js';
import { openService } from '../runtime/service.js';

export type PreviewSample = Parameters<NonNullable<RunOptions['onSample']>>[0];

export async function previewSync(configFile: string, syncName: string, limit: number): Promise<{ samples: PreviewSample[]; plan: RunSummary }> {
  const config = await loadProject(configFile);
  const [sync] = selectSyncs(config, [syncName]);
  if (!sync) throw new FerryError('FERRY_USAGE', `no sync named "${syncName}"`);
  const prepared = await prepareSync(config, sync);
  const logger = createLogger({ level: 'warn' });
  const store = await openProjectState(config);
  const samples: PreviewSample[] = [];
  try {
    const connection = await openService(config, { logger });
    try {
      const plan = await runSync(prepared, { store, service: connection.client }, {
        dryRun: true,
        signal: new AbortController().signal,
        logger,
        concurrency: config.service.concurrency,
        maxRequestsPerSecond: config.service.maxRequestsPerSecond,
        maxAttempts: config.service.maxAttempts,
        onSample: (sample) => {
          if (samples.length < limit) samples.push(sample);
        },
      });
      return { samples, plan };
    } finally {
      await connection.close();
    }
  } finally {
    await store.close();
  }
}
