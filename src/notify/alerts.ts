/**
 * What an alert says: which sync, what happened and where to look. Built from
 * a finished run (failed, or too many records rejected) or from a sync's run
 * history (no success within its expected interval). Pure: no I/O.
 */
import { cronParser } from '../config/cron.js';
import type { LoadedConfig } from '../config/index.js';
import type { NotifyConfig } from '../config/notify.js';
import type { RunCounts, RunEntry } from '../state/index.js';

export type AlertKind = 'run-failed' | 'rejected-share' | 'not-succeeded';

export interface Alert {
  kind: AlertKind;
  sync: string;
  /** One line: what happened. */
  title: string;
  /** More detail: counts, the error, since when. */
  detail: string;
  /** Where to look: a console address when `notify.consoleUrl` is set, and the command that shows the same. */
  where: { url?: string; command: string };
  runId: string | null;
  counts?: RunCounts;
  /** When the alert was raised (ISO 8601). */
  at: string;
}

/** A finished run as alerts see it (a sync's or a slice's summary, or a worker job's outcome). */
export interface FinishedRun {
  sync: string;
  runId: string | null;
  status: string;
  counts: RunCounts;
  error?: string | null;
  durationMs?: number | null;
}

function consoleLink(notify: NotifyConfig, path: string): { url?: string } {
  return notify.consoleUrl ? { url: `${notify.consoleUrl.replace(/\/+$/, '')}${path}` } : {};
}

/** The alerts a finished run raises: its failure, and a rejected share above the threshold. */
export function alertsForRun(notify: NotifyConfig, run: FinishedRun, now: Date = new Date()): Alert[] {
  const alerts: Alert[] = [];
  const runPath = run.runId ? `/syncs/${encodeURIComponent(run.sync)}/runs/${encodeURIComponent(run.runId)}` : `/syncs/${encodeURIComponent(run.sync)}`;
  if (notify.onFailure && run.status === 'failed') {
    alerts.push({
      kind: 'run-failed',
      sync: run.sync,
      title: `ferry: sync ${run.sync} failed`,
      detail: `${run.error ?? 'the run failed'} (read ${run.counts.read}, created ${run.counts.created}, updated ${run.counts.updated}, rejected ${run.counts.failed})`,
      where: { ...consoleLink(notify, runPath), command: `ferry status ${run.sync} --runs 5` },
      runId: run.runId,
      counts: run.counts,
      at: now.toISOString(),
    });
  }
  const threshold = notify.rejectedShareAbove;
  if (threshold !== null && run.counts.failed > 0) {
    const share = run.counts.failed / Math.max(run.counts.read, run.counts.failed);
    if (share > threshold) {
      alerts.push({
        kind: 'rejected-share',
        sync: run.sync,
        title: `ferry: sync ${run.sync} rejected ${percent(share)} of its records`,
        detail: `${run.counts.failed} of ${run.counts.read} records read were rejected and dead-lettered (threshold ${percent(threshold)})`,
        where: { ...consoleLink(notify, `/failures?sync=${encodeURIComponent(run.sync)}`), command: `ferry failures list ${run.sync}` },
        runId: run.runId,
        counts: run.counts,
        at: now.toISOString(),
      });
    }
  }
  return alerts;
}

/**
 * How long a sync may go without a successful run: `notify.notSucceededWithin`,
 * else twice the interval of its `schedule:`, else not watched (undefined).
 */
export function expectedIntervalMs(notify: NotifyConfig, sync: LoadedConfig['syncs'][number], now: Date): number | undefined {
  if (notify.notSucceededWithin !== undefined) return notify.notSucceededWithin;
  if (sync.schedule === undefined) return undefined;
  const times = cronParser().parseExpression(sync.schedule, { tz: 'UTC', currentDate: now });
  const first = times.next().getTime();
  const second = times.next().getTime();
  return 2 * (second - first);
}

/**
 * The alert for a sync whose last success is older than its expected interval
 * (or that never succeeded since its first run started that long ago);
 * `runs` are its recent runs, newest first. Undefined when it is fine or not watched.
 */
export function overdueAlert(notify: NotifyConfig, sync: LoadedConfig['syncs'][number], runs: readonly RunEntry[], now: Date): Alert | undefined {
  const within = expectedIntervalMs(notify, sync, now);
  if (within === undefined || runs.length === 0) return undefined;
  const success = runs.find((r) => r.status === 'succeeded' || r.status === 'partial');
  const since = success ? Date.parse(success.finishedAt ?? success.startedAt) : Date.parse(runs.at(-1)!.startedAt);
  if (now.getTime() - since <= within) return undefined;
  const last = runs[0]!;
  return {
    kind: 'not-succeeded',
    sync: sync.name,
    title: `ferry: sync ${sync.name} has not succeeded for ${ago(now.getTime() - since)}`,
    detail: `${success ? `last success ${new Date(since).toISOString()}` : 'no successful run recorded'}; expected within ${ago(within)}; last run ${last.status} at ${last.startedAt}${last.error ? `: ${last.error}` : ''}`,
    where: { ...consoleLink(notify, `/syncs/${encodeURIComponent(sync.name)}`), command: `ferry status ${sync.name} --runs 5` },
    runId: success?.runId ?? null,
    at: now.toISOString(),
  };
}

function percent(share: number): string {
  return `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
}

function ago(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  const hours = ms / 3_600_000;
  return hours < 48 ? `${Number(hours.toFixed(1))} h` : `${Number((hours / 24).toFixed(1))} days`;
}
