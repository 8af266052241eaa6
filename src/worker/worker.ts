/**
 * `ferry worker`: a stateless process that takes runs of the project's syncs
 * and exports from the queue in the state database, runs up to
 * `concurrency` of them at once, and keeps `schedule:`s registered.
 * SIGTERM stops claiming, lets running syncs finish their in-flight
 * requests and checkpoint, hands their jobs back to the queue, and exits.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/index.js';
import type { FerryMetrics } from '../metrics/registry.js';
import { openStateStore } from '../state/index.js';
import type { StateStore } from '../state/index.js';
import { withRedactedWrites } from '../runtime/redacted-state.js';
import { Dispatcher } from './dispatcher.js';
import type { ClaimedJob } from './dispatcher.js';
import { Notifier } from '../notify/notifier.js';
import { executeRun } from './execute.js';
import { fanOut, isFanOut } from './fan-out.js';
import { listenForWork } from './wake.js';
import type { RunOutcome } from './execute.js';
import { startHealthServer } from './health.js';
import { JobTable } from './job-table.js';
import { leasedStore } from './leased-store.js';
import { openSharedBudget } from '../runtime/rate-budget.js';
import type { SharedRateBudget } from '../runtime/rate-budget.js';
import { DEFAULT_QUEUE_SETTINGS, createBoss, registerQueues, sharedState } from './queue.js';
import type { QueueSettings } from './queue.js';

/** How often a worker looks for syncs that have not succeeded within their expected interval (notify:). */
const OVERDUE_CHECK_MS = 60_000;

export interface WorkerOptions {
  config: LoadedConfig;
  logger: Logger;
  /** Runs at once on this worker. Default 2. */
  concurrency?: number;
  /** Port of /healthz and /readyz; 0 picks a free one; undefined serves none. */
  healthPort?: number;
  healthHost?: string;
  /** Queue polling interval. Default 1000 ms. */
  pollMs?: number;
  settings?: Partial<QueueSettings>;
  /** Stops the worker like SIGTERM does. */
  signal?: AbortSignal;
}

export interface RunningWorker {
  id: string;
  healthPort: number | undefined;
  /** Resolves when the worker has drained and closed everything. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { config, logger } = options;
  const settings: QueueSettings = { ...DEFAULT_QUEUE_SETTINGS, ...options.settings };
  const { url, schema, queueSchema } = sharedState(config);
  const id = `${hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`;
  const log = logger.child({ worker: id });
  const stopRuns = new AbortController();
  let ready = false;

  // Free-text writes (dead-letter, runs.error) are redacted, as for `ferry run`.
  const store: StateStore = withRedactedWrites(await openStateStore(url, { schema }));
  const budget = await openSharedBudget(config);
  const scheduled = await registerQueues(config, settings);
  const boss = createBoss(config, 'worker', settings);
  boss.on('error', (error) => log.warn({ err: error }, 'queue maintenance error'));
  await boss.start();
  const jobs = new JobTable(boss, queueSchema);
  const notifier = new Notifier(config, log);

  // Served next to /healthz; prom-client is loaded only by a worker that serves it.
  const metrics = options.healthPort === undefined ? undefined : new (await import('../metrics/registry.js')).FerryMetrics({ processMetrics: true });
  const dispatcher = new Dispatcher({
    boss,
    jobs,
    workerId: id,
    concurrency: options.concurrency ?? 2,
    pollMs: options.pollMs ?? 1000,
    logger: log,
    run: (job) =>
      // A partitioned sync's scheduled run becomes one job per slice, for any free worker to take.
      isFanOut(config, job.request)
        ? fanOut(boss, jobs, config, job.queue, job.request)
        : runJob(job, { config, store, budget, jobs, settings, workerId: id, logger: log, stop: stopRuns.signal, notifier, ...(metrics ? { metrics } : {}) }),
  });

  let health: { server: Server; port: number } | undefined;
  if (options.healthPort !== undefined) {
    health = await startHealthServer(options.healthPort, options.healthHost ?? '0.0.0.0', {
      metrics,
      workerId: id,
      ready: () => ready,
      running: () => [...dispatcher.running.values()].map((j) => ({ queue: j.queue, job: j.id, startedAt: j.startedAt })),
    });
  }

  dispatcher.start();
  // `ferry run --queue` and fan-outs notify: take their jobs at once, not at the next poll.
  const wake = await listenForWork(url, queueSchema, () => dispatcher.nudge(), log);
  ready = true;
  // A stalled sync raises no run of its own: the worker looks for syncs past their expected interval.
  const overdue = notifier.enabled ? setInterval(() => void notifier.checkOverdue(store).catch((error: unknown) => log.warn({ err: error }, 'could not check for stalled syncs')), OVERDUE_CHECK_MS) : undefined;
  overdue?.unref();
  log.info({ queueSchema, concurrency: options.concurrency ?? 2, scheduled, leaseMs: settings.leaseMs, healthPort: health?.port }, 'worker started');

  let stopped: Promise<void> | undefined;
  let markDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (markDone = resolve));
  const onSignal = () => void stop();
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      process.removeListener('SIGTERM', onSignal);
      process.removeListener('SIGINT', onSignal);
      ready = false;
      log.info({ running: dispatcher.running.size }, 'worker stopping: finishing in-flight requests, checkpointing, handing runs back');
      stopRuns.abort();
      clearInterval(overdue);
      await wake.close();
      await dispatcher.stop();
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      await store.close();
      await budget?.close();
      await new Promise<void>((resolve) => (health ? health.server.close(() => resolve()) : resolve()));
      log.info('worker stopped');
    })().finally(markDone);
    return stopped;
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  options.signal?.addEventListener('abort', onSignal, { once: true });
  return { id, healthPort: health?.port, done, stop };
}

interface JobContext {
  config: LoadedConfig;
  store: StateStore;
  budget: SharedRateBudget | undefined;
  jobs: JobTable;
  settings: QueueSettings;
  workerId: string;
  logger: Logger;
  stop: AbortSignal;
  metrics?: FerryMetrics;
  notifier: Notifier;
}

/** Runs one claimed job with its own lease: losing the lease (or SIGTERM) aborts the run. */
async function runJob(job: ClaimedJob, ctx: JobContext): Promise<RunOutcome> {
  const lost = new AbortController();
  const log = ctx.logger.child({ job: job.id, [job.request.kind]: job.request.name });
  const renewJob = async () => {
    await ctx.jobs.extendLease(job.queue, job.id, ctx.settings.leaseMs, ctx.workerId);
  };
  await renewJob();
  const store = leasedStore(ctx.store, {
    leaseMs: ctx.settings.leaseMs,
    acquireWaitMs: ctx.settings.leaseMs * 2,
    onRenew: renewJob,
    onLost: (sync) => {
      log.error({ sync }, 'lost the lease of this run to another worker; stopping it');
      lost.abort();
    },
    onError: (error) => log.warn({ err: error }, 'could not renew the run lease'),
  });
  return executeRun(job.request, {
    config: ctx.config,
    store,
    budget: ctx.budget,
    logger: log,
    signal: AbortSignal.any([ctx.stop, lost.signal]),
    notifier: ctx.notifier,
    ...(ctx.metrics ? { metrics: ctx.metrics } : {}),
  });
}

