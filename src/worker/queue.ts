/**
 * The run queue: one pg-boss queue per sync and per export, in the schema
 * `<state schema>_queue` of the state database. Per-sync queues with the
 * `stately` policy give "at most one queued and one running job per sync"
 * from pg-boss itself (a second enqueue while one waits is coalesced), and
 * keep one busy sync from holding up the others.
 */
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { LoadedConfig } from '../config/index.js';
import { FerryError } from '../sdk/errors.js';
import { docsPage } from '../sdk/ferry-package.js';
import type { ReadPartition } from '../sdk/types.js';
import { parseStateUrl } from '../state/index.js';

export type RunKind = 'sync' | 'export';

/** What a queued job asks for. */
export interface RunRequest {
  kind: RunKind;
  name: string;
  fullRefresh?: boolean;
  /** One slice of a partitioned sync; absent means the whole sync (every slice, one after another). */
  partition?: ReadPartition;
}

/** How long a run's lease lasts without renewal, and how failed runs are retried. */
export interface QueueSettings {
  leaseMs: number;
  retryLimit: number;
  retryDelaySeconds: number;
}

export const DEFAULT_QUEUE_SETTINGS: QueueSettings = { leaseMs: 60_000, retryLimit: 3, retryDelaySeconds: 10 };

const PREFIX = 'ferry-';

export function queueName(kind: RunKind, name: string): string {
  return `${PREFIX}${kind}-${name}`;
}

/** The sync or export a queue runs, or undefined for a queue ferry did not create. */
export function parseQueueName(queue: string): { kind: RunKind; name: string } | undefined {
  const match = /^ferry-(sync|export)-(.+)$/.exec(queue);
  return match ? { kind: match[1] as RunKind, name: match[2] ?? '' } : undefined;
}

export const QUEUE_NAME_PATTERN = `${PREFIX}%`;

/** The state URL and schemas a project's workers share; refuses SQLite state, which cannot be shared. */
export function sharedState(config: LoadedConfig): { url: string; schema: string; queueSchema: string } {
  const location = parseStateUrl(config.state.url);
  if (location.kind !== 'postgres') {
    throw new FerryError('FERRY_CONFIG_INVALID', 'ferry worker and ferry run --queue need state.url: postgres://…', {
      where: config.file,
      hint: `workers share their state and queue through PostgreSQL; see ${docsPage('scale-out.md')}`,
    });
  }
  const schema = config.state.schema ?? 'ferry';
  return { url: location.url, schema, queueSchema: `${schema}_queue` };
}

/** A pg-boss instance on the project's state database. `role` decides whether it maintains and schedules. */
export function createBoss(config: LoadedConfig, role: 'worker' | 'client', settings: QueueSettings = DEFAULT_QUEUE_SETTINGS): PgBoss {
  const { url, queueSchema } = sharedState(config);
  const worker = role === 'worker';
  return new PgBoss({
    connectionString: url,
    schema: queueSchema,
    application_name: `ferry-${role}`,
    max: worker ? 4 : 2,
    supervise: worker,
    schedule: worker,
    // Expired leases are found by maintenance: run it often enough that a dead worker's run moves on within about one lease.
    maintenanceIntervalSeconds: Math.max(1, Math.round(settings.leaseMs / 2000)),
    // Due schedules are turned into jobs within a couple of seconds (pg-boss checks cron every 30 s by default).
    cronMonitorIntervalSeconds: 10,
    cronWorkerIntervalSeconds: 2,
  });
}

/** Every run a project can queue: its syncs and exports, with their schedules. */
export function projectRuns(config: LoadedConfig): { kind: RunKind; name: string; schedule: string | undefined }[] {
  return [
    ...config.syncs.map((s) => ({ kind: 'sync' as const, name: s.name, schedule: s.schedule })),
    ...config.exports.map((e) => ({ kind: 'export' as const, name: e.name, schedule: e.schedule })),
  ];
}

/**
 * Runs `fn` while holding a session advisory lock of the queue schema:
 * creating a pg-boss queue attaches a partition to its job table, and
 * several workers doing that at once can deadlock.
 */
export async function withQueueSetupLock<T>(config: LoadedConfig, fn: () => Promise<T>): Promise<T> {
  const { url, queueSchema } = sharedState(config);
  const client = new pg.Client({ connectionString: url, application_name: 'ferry-queue-setup' });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`ferry-queue-setup:${queueSchema}`]);
    return await fn();
  } finally {
    await client.end(); // ends the session, which releases the lock
  }
}

/** Creates (or updates) the queue of each sync and export, idempotently; workers and `run --queue` both call it, under {@link withQueueSetupLock}. */
export async function ensureQueues(boss: PgBoss, config: LoadedConfig, settings: QueueSettings = DEFAULT_QUEUE_SETTINGS): Promise<void> {
  for (const run of projectRuns(config)) {
    const queue = queueName(run.kind, run.name);
    const options: PgBoss.Queue = {
      name: queue,
      policy: 'stately',
      retryLimit: settings.retryLimit,
      retryDelay: settings.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: Math.max(1, Math.ceil(settings.leaseMs / 1000)),
    };
    await boss.createQueue(queue, options);
    await boss.updateQueue(queue, options);
  }
}

/** Registers each `schedule:` with pg-boss's cron, and removes schedules no longer in the config. */
export async function syncSchedules(boss: PgBoss, config: LoadedConfig): Promise<number> {
  const wanted = new Map<string, { request: RunRequest; cron: string }>();
  for (const run of projectRuns(config)) {
    if (run.schedule !== undefined) wanted.set(queueName(run.kind, run.name), { request: { kind: run.kind, name: run.name }, cron: run.schedule });
  }
  for (const existing of await boss.getSchedules()) {
    if (parseQueueName(existing.name) !== undefined && !wanted.has(existing.name)) await boss.unschedule(existing.name);
  }
  for (const [queue, { request, cron }] of wanted) {
    await boss.schedule(queue, cron, { ...request }, { singletonKey: request.name, tz: 'UTC' });
  }
  return wanted.size;
}

/**
 * Creates the queues and registers the schedules with a short-lived client,
 * before a worker's scheduling instance starts: that instance checks cron at
 * start, and on a fresh database would otherwise find no schedule and wait a
 * full interval. Returns how many runs are scheduled.
 */
export async function registerQueues(config: LoadedConfig, settings: QueueSettings): Promise<number> {
  const setup = createBoss(config, 'client', settings);
  await setup.start();
  try {
    return await withQueueSetupLock(config, async () => {
      await ensureQueues(setup, config, settings);
      return syncSchedules(setup, config);
    });
  } finally {
    await setup.stop({ graceful: false, wait: true });
  }
}
