/**
 * What the console's pages show, collected from the state store and the
 * config with the same cores the CLI uses (`ferry status`, `ferry state
 * show`, `ferry failures list`), so a page and its command always agree.
 */
import cronParser from 'cron-parser';
import type { LoadedConfig } from '../config/index.js';
import { collectStatus } from '../project/status.js';
import type { SyncStatus } from '../project/status.js';
import { collectState } from '../project/sync-state.js';
import { configuredStateKeys, stateSyncNames } from '../project/sync-names.js';
import { isRecord } from '../sdk/guards.js';
import { redactUrl } from '../sdk/redact.js';
import type { DeadLetterStore, FailureEntry, RunCounts, RunEntry, RunStore, StateStore } from '../state/index.js';

export interface OverviewRow extends SyncStatus {
  kind: 'sync' | 'export';
  /** The sync's or export's name in the config (an export's state key is `export:<name>`). */
  name: string;
  schedule: string | null;
  nextRun: string | null;
  recordsPerSecond: number | null;
  /** Where it is declared (file:line:col). */
  declaredAt: string | null;
}

export function nextRunOf(schedule: string | undefined, now: Date): string | null {
  if (schedule === undefined) return null;
  try {
    return cronParser.parseExpression(schedule, { tz: 'UTC', currentDate: now }).next().toISOString();
  } catch {
    return null;
  }
}

export function recordsPerSecond(run: Pick<RunEntry, 'counts' | 'durationMs'> | null): number | null {
  if (!run || !run.durationMs || run.durationMs <= 0) return null;
  return Math.round((run.counts.read / run.durationMs) * 1000 * 10) / 10;
}

/** Every sync and export: `ferry status --json`'s rows, with schedule, next run and rate. */
export async function overview(config: LoadedConfig, store: StateStore, now = new Date()): Promise<OverviewRow[]> {
  const names = await stateSyncNames(config, store, []);
  const statuses = await collectStatus(store, names, configuredStateKeys(config), 0);
  const exportNames = new Set(config.exports.map((e) => `export:${e.name}`));
  const rows: OverviewRow[] = statuses.map((s) => {
    const sync = config.syncs.find((c) => c.name === s.sync);
    const exp = config.exports.find((e) => `export:${e.name}` === s.sync);
    const declared = sync ?? exp;
    const at = declared ? declared.locate([]) : undefined;
    return {
      ...s,
      kind: s.sync.startsWith('export:') ? 'export' : 'sync',
      name: s.sync.startsWith('export:') ? s.sync.slice('export:'.length) : s.sync,
      schedule: declared?.schedule ?? null,
      nextRun: nextRunOf(declared?.schedule, now),
      recordsPerSecond: recordsPerSecond(s.lastRun),
      declaredAt: at ? `${at.file}:${at.line}:${at.column}` : null,
    };
  });
  // Exports never run yet have no state key: list them too, as `ferry status` lists syncs never run.
  for (const exp of config.exports) {
    if (names.includes(`export:${exp.name}`) || exportNames.size === 0) continue;
    const at = exp.locate([]);
    rows.push({
      sync: `export:${exp.name}`,
      name: exp.name,
      kind: 'export',
      configured: true,
      lastRun: null,
      cursor: null,
      openFailures: 0,
      liveRecords: 0,
      schedule: exp.schedule ?? null,
      nextRun: nextRunOf(exp.schedule, now),
      recordsPerSecond: null,
      declaredAt: `${at.file}:${at.line}:${at.column}`,
    });
  }
  return rows;
}

/** `ferry state show --json`. */
export async function stateView(config: LoadedConfig, store: StateStore): Promise<{ stateUrl: string; syncs: Awaited<ReturnType<typeof collectState>> }> {
  const names = await stateSyncNames(config, store, []);
  return { stateUrl: redactUrl(config.state.url), syncs: await collectState(store, names, configuredStateKeys(config)) };
}

/**
 * The error code of a dead-letter entry: the service's `detail.error` in its
 * answer (validation_error, conflict…), else the HTTP status, else `invalid` for ferry's own validation.
 */
export function failureCode(entry: Pick<FailureEntry, 'errorBody' | 'status' | 'kind'>): string {
  const body = entry.errorBody;
  // The spec's structured error: {detail: {error: "validation_error", message, field, request_id}}.
  if (isRecord(body) && isRecord(body.detail) && typeof body.detail.error === 'string') return body.detail.error;
  return entry.status !== null ? String(entry.status) : entry.kind;
}

export interface FailureQuery {
  sync?: string;
  code?: string;
  /** A part of the remote id. */
  remoteId?: string;
  beforeId?: number;
  limit: number;
}

/** Entries looked at per request when filtering by code or remote id (the rest is a click on "Older" away). */
export const FAILURE_SCAN_LIMIT = 5000;

/**
 * A page of the dead-letter, newest first, filtered by sync (in the store),
 * code and remote id (while paging, at most {@link FAILURE_SCAN_LIMIT}
 * entries a request, so a huge dead-letter costs bounded memory and time).
 */
export async function failurePage(store: DeadLetterStore, query: FailureQuery): Promise<{ total: number; failures: (FailureEntry & { code: string })[]; nextBeforeId: number | null; scanned: number }> {
  const total = await store.failureCount(query.sync);
  const out: (FailureEntry & { code: string })[] = [];
  let beforeId = query.beforeId;
  let scanned = 0;
  const filtering = query.code !== undefined || query.remoteId !== undefined;
  const needle = query.remoteId?.toLowerCase();
  for (;;) {
    const page = await store.failures({ ...(query.sync ? { sync: query.sync } : {}), limit: filtering ? 500 : query.limit, ...(beforeId === undefined ? {} : { beforeId }) });
    for (const entry of page) {
      scanned += 1;
      beforeId = entry.id;
      const code = failureCode(entry);
      if (query.code !== undefined && code !== query.code) continue;
      if (needle !== undefined && !(entry.remoteId ?? '').toLowerCase().includes(needle)) continue;
      out.push({ ...entry, code });
      if (out.length >= query.limit) return { total, failures: out, nextBeforeId: entry.id, scanned };
    }
    if (page.length === 0 || !filtering || scanned >= FAILURE_SCAN_LIMIT) {
      const more = page.length > 0 && (filtering || page.length >= query.limit);
      return { total, failures: out, nextBeforeId: more ? (beforeId ?? null) : null, scanned };
    }
  }
}

/** One dead-letter entry by id. */
export async function failureById(store: DeadLetterStore, id: number): Promise<(FailureEntry & { code: string }) | undefined> {
  const [entry] = await store.failures({ beforeId: id + 1, limit: 1 });
  return entry && entry.id === id ? { ...entry, code: failureCode(entry) } : undefined;
}

/** A run of a sync by id, among its recent runs. */
export async function runById(store: RunStore, sync: string, runId: string): Promise<RunEntry | undefined> {
  return (await store.runs({ sync, limit: 500 })).find((r) => r.runId === runId);
}

/** A run's counts as the page shows them while it runs: the console's own live counts, else the last checkpoint's. */
export function liveCounts(run: RunEntry, live: ReadonlyMap<string, RunCounts>): RunCounts {
  return run.status === 'running' ? (live.get(run.sync) ?? run.counts) : run.counts;
}
