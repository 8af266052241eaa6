/**
 * `ferry worker`: take runs of this project's syncs and exports from the
 * queue in the shared PostgreSQL state until SIGTERM. Also the queue's
 * lines in `ferry status` and `ferry run --queue`'s report.
 */
import { FerryError } from '../sdk/errors.js';
import { createLogger } from '../runtime/logger.js';
import { loadProject } from '../runtime/project.js';
import { startWorker } from '../worker/worker.js';
import { enqueueRuns } from '../worker/enqueue.js';
import type { QueuedRun } from '../worker/enqueue.js';
import { collectQueueStatus } from '../worker/queue-status.js';
import type { QueueEntry } from '../worker/queue-status.js';
import type { LoadedConfig } from '../config/index.js';
import { configFileOf } from './context.js';
import { formatAge, formatTable, truncate } from './format.js';
import type { Command } from 'commander';
import type { RegisterCommand } from './main.js';
import { printJson } from './output.js';

function positiveInt(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new FerryError('FERRY_USAGE', `${flag} takes a whole number, not "${value}"`);
    return n;
  };
}

export const register: RegisterCommand = (command) => {
  command
    .option('--concurrency <n>', 'runs at once on this worker', positiveInt('--concurrency'), 2)
    .option('--health-port <port>', 'serve GET /healthz, /readyz and /metrics on this port (0: any free port)', positiveInt('--health-port'))
    .option('--lease-seconds <s>', 'a run whose worker stops renewing it for this long is retried elsewhere', positiveInt('--lease-seconds'), 60)
    .option('--retries <n>', 'attempts after the first for a run that fails or is interrupted', positiveInt('--retries'), 3)
    .option('--retry-delay <s>', 'first retry delay in seconds; doubles each retry', positiveInt('--retry-delay'), 10)
    .action(async (opts: { concurrency: number; healthPort?: number; leaseSeconds: number; retries: number; retryDelay: number }, command: Command) => {
      const config = await loadProject(configFileOf(command));
      const worker = await startWorker({
        config,
        logger: createLogger(),
        concurrency: Math.max(1, opts.concurrency),
        ...(opts.healthPort !== undefined ? { healthPort: opts.healthPort } : {}),
        settings: { leaseMs: Math.max(1, opts.leaseSeconds) * 1000, retryLimit: opts.retries, retryDelaySeconds: Math.max(1, opts.retryDelay) },
      });
      await worker.done;
    });
};

/** `ferry run --queue [--wait]`: queue the runs, print what happened, return the exit code. */
export async function queueRuns(configFile: string, names: readonly string[], flags: { fullRefresh?: boolean; wait?: boolean; json?: boolean }): Promise<number> {
  const config = await loadProject(configFile);
  const runs = await enqueueRuns(config, { names, ...(flags.fullRefresh ? { fullRefresh: true } : {}), ...(flags.wait ? { wait: true } : {}) });
  if (flags.json) printJson({ queued: runs });
  else console.log(formatQueuedRuns(runs));
  return Math.max(0, ...runs.map((r) => r.outcome?.exitCode ?? 0));
}

/** `ferry run --queue` report: one line per queued run, and its outcome with `--wait`. */
export function formatQueuedRuns(runs: readonly QueuedRun[]): string {
  return runs
    .map((r) => {
      const head = `${r.kind} ${r.name}: ${r.joined ? 'already queued, joined' : 'queued'} job ${r.jobId}`;
      if (!r.outcome) return head;
      return `${head} → ${r.outcome.status} (exit ${r.outcome.exitCode})${r.outcome.error ? `: ${truncate(r.outcome.error, 200)}` : ''}`;
    })
    .join('\n');
}

/** The queue section of `ferry status` with shared state, as entries (for --json) and text. */
export async function queueStatus(config: LoadedConfig): Promise<{ entries: QueueEntry[]; text: string }> {
  const entries = await collectQueueStatus(config);
  return { entries, text: formatQueueStatus(entries, Date.now()) };
}

/** A finished job's result; a scheduled run of a partitioned sync says how many slices it queued. */
function resultOf(outcome: QueueEntry['outcome']): string {
  if (outcome === undefined) return '';
  const queued = (outcome as { queued?: unknown }).queued;
  if (Array.isArray(queued)) return `queued ${queued.length} slice${queued.length === 1 ? '' : 's'}`;
  return `${outcome.status}${outcome.error ? `: ${truncate(outcome.error, 60)}` : ''}`;
}

/** The queue section of `ferry status` with shared state. */
export function formatQueueStatus(entries: readonly QueueEntry[], now: number): string {
  if (entries.length === 0) return 'Queue: empty (no run queued, running or finished lately).';
  return `Queue:\n${formatTable(
    [{ header: 'RUN' }, { header: 'STATE' }, { header: 'WORKER' }, { header: 'ATTEMPTS', align: 'right' }, { header: 'WHEN' }, { header: 'RESULT' }],
    entries.map((e) => [
      `${e.kind} ${e.name}`,
      e.state,
      e.worker ?? '-',
      String(e.attempts),
      e.at ? formatAge(e.at, now) : '-',
      resultOf(e.outcome),
    ]),
  )
    .replace(/^/gm, '  ')}`;
}
