/**
 * The queue side of `ferry status` with shared state: what is waiting, what
 * runs on which worker, and what finished lately, across every worker.
 */
import type { LoadedConfig } from '../config/index.js';
import type { RunOutcome } from './execute.js';
import { JobTable } from './job-table.js';
import { createBoss, parseQueueName, sharedState } from './queue.js';

export interface QueueEntry {
  kind: 'sync' | 'export';
  name: string;
  jobId: string;
  state: 'queued' | 'retrying' | 'running' | 'succeeded' | 'finished' | 'failed' | 'cancelled';
  /** The worker running (or that ran) the job. */
  worker: string | null;
  attempts: number;
  /** When a queued job may start, when a running one started, when a finished one ended. */
  at: string | null;
  outcome?: RunOutcome;
}

export async function collectQueueStatus(config: LoadedConfig, finishedLimit = 20): Promise<QueueEntry[]> {
  const boss = createBoss(config, 'client');
  await boss.start();
  try {
    const rows = await new JobTable(boss, sharedState(config).queueSchema).list(finishedLimit);
    return rows.flatMap((row) => {
      const target = parseQueueName(row.queue);
      if (target === undefined) return [];
      const output = (row.output ?? {}) as Partial<RunOutcome> & { worker?: string };
      const finished = row.state === 'completed' || row.state === 'failed' || row.state === 'cancelled';
      const entry: QueueEntry = {
        ...target,
        // A slice of a partitioned sync is queued under its own key (`orders#3/8`).
        ...(row.singletonKey ? { name: row.singletonKey } : {}),
        jobId: row.id,
        state: stateOf(row.state, output),
        worker: typeof output.worker === 'string' ? output.worker : null,
        attempts: row.retryCount + (row.startedOn ? 1 : 0),
        at: iso(row.state === 'active' ? row.startedOn : finished ? row.completedOn : row.startAfter),
        ...(finished && typeof output.status === 'string' ? { outcome: output as RunOutcome } : {}),
      };
      return [entry];
    });
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

function stateOf(state: string, output: Partial<RunOutcome>): QueueEntry['state'] {
  switch (state) {
    case 'created':
      return 'queued';
    case 'retry':
      return 'retrying';
    case 'active':
      return 'running';
    case 'completed':
      return output.status === 'succeeded' ? 'succeeded' : 'finished';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'failed';
  }
}

function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
