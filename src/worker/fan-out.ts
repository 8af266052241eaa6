/**
 * The jobs one run of a sync is queued as, and the fan-out of a partitioned
 * sync's scheduled run. pg-boss keeps one schedule per queue, so a schedule
 * queues one job for the whole sync; for a partitioned sync, the worker that
 * takes that job does not run the slices itself but queues one job per slice
 * (as `ferry run --queue` does), so that free workers take them in parallel.
 */
import type PgBoss from 'pg-boss';
import type { LoadedConfig } from '../config/index.js';
import { partitionKey, partitionsOf } from '../pipeline/partitions.js';
import { FerryError } from '../sdk/errors.js';
import type { RunOutcome } from './execute.js';
import type { JobTable } from './job-table.js';
import type { RunKind, RunRequest } from './queue.js';

/** One job to queue: what it asks for, and the key it is coalesced on (the sync's name, or a slice's state key). */
export interface RunJob {
  key: string;
  request: RunRequest;
}

/** The jobs of one run of a sync or export: one per slice of a partitioned sync, else one. */
export function runJobs(config: LoadedConfig, target: { kind: RunKind; name: string }, options: { fullRefresh?: boolean } = {}): RunJob[] {
  const sync = target.kind === 'sync' ? config.syncs.find((s) => s.name === target.name) : undefined;
  const base: RunRequest = { kind: target.kind, name: target.name, ...(options.fullRefresh ? { fullRefresh: true } : {}) };
  return (sync ? partitionsOf(sync) : [undefined]).map((partition) =>
    partition ? { key: partitionKey(target.name, partition), request: { ...base, partition } } : { key: target.name, request: base },
  );
}

/** Sends one job, or joins the one of its key already waiting; returns its id and whether it joined. */
export async function sendRunJob(boss: PgBoss, jobs: JobTable, queue: string, job: RunJob): Promise<{ jobId: string; joined: boolean }> {
  const sent = await boss.send(queue, job.request, { singletonKey: job.key });
  if (sent !== null) await jobs.notifyQueued();
  const jobId = sent ?? (await jobs.waitingJob(queue, job.key));
  if (jobId === undefined) throw new FerryError('FERRY_STATE_ERROR', `could not queue ${job.request.kind} "${job.key}"`, { hint: "retry; check the workers' logs" });
  return { jobId, joined: sent === null };
}

/** True for a job asking for a whole partitioned sync (what its schedule queues): it is fanned out, not run. */
export function isFanOut(config: LoadedConfig, request: RunRequest): boolean {
  if (request.kind !== 'sync' || request.partition !== undefined) return false;
  return config.syncs.find((s) => s.name === request.name)?.partitions !== undefined;
}

/** What a fan-out job records as its outcome: the slice jobs it queued (or joined). */
export interface FanOutOutcome extends RunOutcome {
  queued: { key: string; jobId: string; joined: boolean }[];
}

/** Queues one job per slice of the sync `request` names, in the queue the request came from. */
export async function fanOut(boss: PgBoss, jobs: JobTable, config: LoadedConfig, queue: string, request: RunRequest): Promise<FanOutOutcome> {
  const queued: FanOutOutcome['queued'] = [];
  for (const job of runJobs(config, request, request.fullRefresh ? { fullRefresh: true } : {})) {
    queued.push({ key: job.key, ...(await sendRunJob(boss, jobs, queue, job)) });
  }
  return { status: 'succeeded', exitCode: 0, runId: null, queued };
}
