/**
 * One run of one export: list (and detail) the resource → write batches to
 * the destination → flush → on completion close the writer and commit the
 * incremental watermark. A stop signal ends reading after the current page;
 * what was read is written and flushed, the writer is aborted (an overwritten
 * file keeps its old content, table rows stay upserted) and the watermark
 * stays where it was. State lives under `export:<name>`, apart from syncs.
 */
import type { Logger } from 'pino';
import { isFerryError } from '../sdk/errors.js';
import type { CursorPosition, DestinationWriter } from '../sdk/types.js';
import type { RunCounts, StateStore } from '../state/index.js';
import { emptyCounts } from '../state/index.js';
import { RunLease } from '../state/run-lease.js';
import { KeySpool } from './key-spool.js';
import { resolveFilters } from './filters.js';
import type { PreparedExport } from './prepare.js';
import { assertCanMirror, listKeys, mirrorDeletes } from './mirror.js';
import { readItems } from './read-items.js';
import type { ExportItem, ExportService } from './resources.js';
import { Watermark } from './watermark.js';
import { RecordShaper, resolveConventions } from './conventions.js';
import { nestedTypesOf } from './nested-types.js';
import type { ExportConventions, ExportLoad } from '../sdk/types.js';
import type { StagedFingerprint } from '../state/index.js';
import { RecordPrints } from './record-prints.js';

export interface ExportRunOptions {
  signal: AbortSignal;
  logger: Logger;
  /** Ignore the stored watermark and export everything the filters select. */
  fullRefresh?: boolean;
  /** Records per destination write. @default the destination's batchSize, else 500 */
  batchSize?: number;
  /** Requests (list pages and details) in flight at once. @default 8 */
  detailConcurrency?: number;
  /** Requests started per second at most (service.maxRequestsPerSecond). @default unlimited */
  requestsPerSecond?: number;
  onProgress?: (counts: RunCounts) => void;
}

export type ExportStatus = 'succeeded' | 'failed' | 'aborted';

export interface ExportSummary {
  export: string;
  runId: string | null;
  status: ExportStatus;
  resource: string;
  destination: string;
  /** Records the destination accepted. */
  exported: number;
  /** read: records read from the service; pushed: written to the destination; skipped: exported by the previous run or gone before their detail was read; deleted: dropped by deletes: mirror. */
  counts: RunCounts;
  durationMs: number;
  /** The committed watermark of an incremental export. */
  cursor: CursorPosition | null;
  /** With `incremental.changes: scan`: of the records read, how many were new, changed or as exported before (docs/exports.md#changed-records). */
  changes?: { inserted: number; updated: number; unchanged: number };
  error?: string;
  /** The ferry error code of a failure, when it had one. */
  errorCode?: string;
  exitCode: 0 | 1 | 3;
}

export const DEFAULT_BATCH_SIZE = 500;
/** Reads in flight when service.concurrency is unset (it is an upper bound the pusher adapts under; reads keep a fixed one). */
export const DEFAULT_DETAIL_CONCURRENCY = 8;

/** The state key of an export: its name, prefixed so it never meets a sync's. */
export function exportStateKey(name: string): string {
  return `export:${name}`;
}

export async function runExport(
  prepared: PreparedExport,
  deps: { store: StateStore; service: ExportService },
  options: ExportRunOptions,
): Promise<ExportSummary> {
  const { exp, destination } = prepared;
  const { store } = deps;
  const key = exportStateKey(exp.name);
  const started = Date.now();
  const log = options.logger.child({ export: exp.name, connector: destination.name });

  const lease = await RunLease.acquire(store, key, `export "${exp.name}"`, log);
  let runId: string;
  let conventions: ExportConventions;
  try {
    // Before the run is recorded: an export without runs and without a recorded layout is new.
    conventions = await resolveConventions(store, key, exp);
    runId = await store.startRun(key);
  } catch (error) {
    await lease.release();
    throw error;
  }
  const run: ExportRun = {
    prepared,
    deps,
    options,
    key,
    runId,
    log,
    runLog: log.child({ runId }),
    counts: emptyCounts(),
    startedAt: new Date(started).toISOString(),
    conventions,
    shaper: new RecordShaper({ conventions, loadId: runId, loadedAt: new Date(started).toISOString(), softDeletes: exp.deletes === 'soft' }),
    watermark: prepared.incremental
      ? new Watermark(prepared.incremental.field, options.fullRefresh ? undefined : await store.cursor(key), started)
      : undefined,
    changes: prepared.changes
      ? {
          bounded: prepared.changes.bounded,
          prints: new RecordPrints({ destination: destination.name, options: prepared.options, layout: conventions, details: exp.details }),
        }
      : undefined,
    report: () => options.onProgress?.({ ...run.counts }),
  };

  const { writer, completed, error } = await transfer(run);
  const outcome = await settleWriter(run, writer, error, completed);
  const errorText = outcome.fatal ? describeError(outcome.fatal) : outcome.status === 'aborted' ? 'stopped by signal; the watermark was not moved' : undefined;
  try {
    await store.finishRun(runId, { status: outcome.status, counts: run.counts, error: errorText ?? null });
  } finally {
    await lease.release();
  }
  run.report();
  return summarize(run, outcome, errorText, Date.now() - started);
}

/** One export run in progress: what it exports, where it stands and what it counted. */
interface ExportRun {
  prepared: PreparedExport;
  deps: { store: StateStore; service: ExportService };
  options: ExportRunOptions;
  key: string;
  runId: string;
  log: Logger;
  runLog: Logger;
  counts: RunCounts;
  startedAt: string;
  /** The layout the run writes in, and the records as the destination receives them. */
  conventions: ExportConventions;
  shaper: RecordShaper;
  watermark: Watermark | undefined;
  /** `incremental: { changes: scan }`: write only what is new or changed since it was exported (docs/exports.md#changed-records). */
  changes: { bounded: boolean; prints: RecordPrints } | undefined;
  report: () => void;
}

interface Transfer {
  writer: DestinationWriter | undefined;
  /** Everything was read and written, and the signal did not stop the run. */
  completed: boolean;
  error?: unknown;
}

interface Outcome {
  status: ExportStatus;
  fatal: unknown;
}

/** Open the destination, read the resource page by page, write it in batches, then mirror deletes. */
async function transfer(run: ExportRun): Promise<Transfer> {
  const { prepared, deps, options, counts, watermark, runLog } = run;
  const { exp, spec, destination } = prepared;
  const { service } = deps;
  let writer: DestinationWriter | undefined;
  /** The keys of `deletes: mirror`: seen by a complete read, else listed after it. */
  let seenKeys: KeySpool | undefined;
  try {
    writer = await destination.open({ options: prepared.options, baseDir: exp.baseDir, syncName: exp.name, logger: run.log, signal: options.signal });
    const tracksDeletes = exp.deletes === 'mirror' || exp.deletes === 'soft';
    if (exp.deletes !== 'ignore') assertCanMirror(writer, destination.name, exp.name, exp.deletes);
    const query = await resolveFilters(service, prepared.filters, exp.name);
    const unbounded = { ...query };
    // A scan of changes by a cursor that is not an activity time lists everything: that is what finds an edited record.
    const bound = prepared.incremental && (!run.changes || run.changes.bounded) ? watermark?.bound() : undefined;
    if (prepared.incremental) applyBound(query, prepared.incremental.param, bound);
    // A run that reads everything its filters select sees every live key; a bounded one lists them afterwards.
    seenKeys = tracksDeletes && bound === undefined ? new KeySpool() : undefined;
    runLog.info({ resource: spec.resource, query, details: exp.details }, 'export started');

    const limits = {
      concurrency: options.detailConcurrency ?? DEFAULT_DETAIL_CONCURRENCY,
      slices: exp.read.slices,
      undated: exp.read.undated,
      ...(options.requestsPerSecond ? { requestsPerSecond: options.requestsPerSecond } : {}),
      logger: runLog,
    };
    await copyItems(run, writer, readItems(service, spec, query, { details: exp.details, ...limits }), seenKeys);
    const completed = !options.signal.aborted;
    if (completed && tracksDeletes) {
      seenKeys ??= await listKeys(service, spec, unbounded, limits);
      const soft = exp.deletes === 'soft';
      counts.deleted = await mirrorDeletes(writer, spec, seenKeys, runLog, {
        key: run.shaper.column(spec.key),
        ...(soft ? { mode: 'soft', deletedAt: new Date().toISOString(), loadId: run.runId } : {}),
      });
      // The fingerprints of what the listing lacks go with the rows, so a record that comes back is written again.
      if (run.changes && seenKeys.size > 0) await deps.store.stageUnlistedExportKeys(run.key, run.runId, seenKeys);
    }
    if (completed && run.changes) {
      runLog.info(
        { inserted: counts.created, updated: counts.updated, unchanged: counts.unchanged, deleted: counts.deleted, bounded: run.changes.bounded },
        'changed records: only new and changed records were written',
      );
    }
    return { writer, completed };
  } catch (error) {
    return { writer, completed: false, error };
  } finally {
    seenKeys?.close();
  }
}

/**
 * Write the items the watermark has not seen, `batchSize` at a time; stop
 * after the page the signal ends. One batch is written while the next is
 * gathered: the read keeps going during a write (the reader's read-ahead
 * alone is a few pages, far less than a batch), and at most one write is in
 * flight, in order, as before.
 */
async function copyItems(
  run: ExportRun,
  writer: DestinationWriter,
  pages: ReturnType<typeof readItems>,
  seenKeys: KeySpool | undefined,
): Promise<void> {
  const { prepared, deps, options, counts, watermark } = run;
  const { spec, destination } = prepared;
  const batchSize = options.batchSize ?? destination.batchSize ?? DEFAULT_BATCH_SIZE;
  const { shaper, conventions } = run;
  const key = shaper.column(spec.key);
  const nestedTypes = nestedTypesOf(spec.resource, conventions);
  const writeBatch = async (listed: ExportItem[]) => {
    const { items, staged } = run.changes ? await changedOf(run, listed) : { items: listed, staged: undefined };
    if (items.length === 0) {
      await deps.store.updateRun(run.runId, counts);
      return;
    }
    const records = shaper.identity ? items : items.map((item) => shaper.shape(item));
    await writer.write({
      stream: spec.resource,
      records,
      key,
      ...(conventions.naming === 'api' && !conventions.metadata && !nestedTypes ? {} : { conventions }),
      ...(nestedTypes ? { nestedTypes } : {}),
    });
    await writer.flush?.();
    // Staged under the load id: they count only once the destination commits the whole run (settleWriter).
    if (staged) await deps.store.stageExportFingerprints(run.key, run.runId, staged);
    counts.pushed += records.length;
    await deps.store.updateRun(run.runId, counts);
    run.report();
  };
  let writing: Promise<void> = Promise.resolve();
  const startWrite = async (records: ExportItem[]) => {
    await writing;
    writing = writeBatch(records);
    // Awaited before the next write and at the end; a failure meanwhile must not go unhandled.
    writing.catch(() => undefined);
  };

  let buffer: ExportItem[] = [];
  let repeatsLogged = false;
  try {
    for await (const page of pages) {
      counts.skipped += page.vanished + page.repeated;
      if (page.repeated > 0 && !repeatsLogged) {
        repeatsLogged = true;
        run.runLog.warn(
          { repeated: page.repeated },
          'the service listed records again on the page after the one that listed them (its paging repeats records at page boundaries); the repeats were skipped and are counted in skipped',
        );
      }
      for (const item of page.items) {
        const id = String(item[spec.key]);
        // A scan of changes tells an exported record by its fingerprint, not by the watermark's ties.
        if (!run.changes && watermark?.seen(item, id)) {
          counts.skipped++;
          continue;
        }
        counts.read++;
        seenKeys?.add(id);
        watermark?.observe(item, id);
        buffer.push(item);
        if (buffer.length >= batchSize) {
          const batch = buffer;
          buffer = [];
          await startWrite(batch);
        }
      }
      run.report();
      if (options.signal.aborted) break;
    }
    await startWrite(buffer);
  } finally {
    await writing;
  }
}

/**
 * The items of a batch that are new or changed since they were exported, by
 * fingerprint (all of them with --full-refresh), counted as created,
 * updated or unchanged; and the fingerprints to stage once they are written.
 */
async function changedOf(run: ExportRun, listed: ExportItem[]): Promise<{ items: ExportItem[]; staged: StagedFingerprint[] }> {
  const { spec } = run.prepared;
  const { counts } = run;
  const prints = run.changes!.prints;
  const ids = listed.map((item) => String(item[spec.key]));
  const known = await run.deps.store.exportFingerprints(run.key, [...new Set(ids)]);
  const items: ExportItem[] = [];
  const staged = new Map<string, string>();
  listed.forEach((item, i) => {
    const id = ids[i]!;
    const print = prints.of(item);
    const before = known.get(id);
    if (before === print && !run.options.fullRefresh) {
      counts.unchanged++;
      return;
    }
    if (before === undefined) counts.created++;
    else counts.updated++;
    items.push(item);
    staged.set(id, print);
  });
  return { items, staged: [...staged] };
}

/** Close the writer and commit the watermark after a complete run; abort it otherwise. */
async function settleWriter(run: ExportRun, writer: DestinationWriter | undefined, error: unknown, completed: boolean): Promise<Outcome> {
  let fatal = error;
  let status: ExportStatus = fatal ? 'failed' : completed ? 'succeeded' : 'aborted';
  try {
    if (status === 'succeeded') {
      if (run.conventions.metadata && writer!.recordLoad) await writer!.recordLoad(loadOf(run));
      await writer!.close();
      // The destination committed every write: the run's fingerprints become the ones the next run compares with.
      if (run.changes) await run.deps.store.commitExportFingerprints(run.key, run.runId);
      const position = run.watermark?.position();
      // The watermark moves only once the destination committed everything below it.
      await run.deps.store.checkpoint(run.key, position);
    } else if (writer) {
      await (writer.abort ? writer.abort(fatal ?? 'stopped') : writer.close());
    }
  } catch (closeError) {
    fatal ??= closeError;
    status = 'failed';
  }
  return { status, fatal };
}

async function summarize(run: ExportRun, outcome: Outcome, errorText: string | undefined, durationMs: number): Promise<ExportSummary> {
  const { prepared, counts } = run;
  const { status, fatal } = outcome;
  const summary: ExportSummary = {
    export: prepared.exp.name,
    runId: run.runId,
    status,
    resource: prepared.spec.resource,
    destination: prepared.destination.name,
    exported: counts.pushed,
    counts,
    durationMs,
    cursor: (await run.deps.store.cursor(run.key)) ?? null,
    ...(run.changes ? { changes: { inserted: counts.created, updated: counts.updated, unchanged: counts.unchanged } } : {}),
    ...(errorText ? { error: errorText } : {}),
    ...(isFerryError(fatal) ? { errorCode: fatal.code } : {}),
    exitCode: status === 'succeeded' ? 0 : fatal && isFerryError(fatal) && fatal.exitCode === 1 ? 1 : 3,
  };
  run.runLog.info({ status, counts, durationMs }, 'export finished');
  return summary;
}

/** Combine the watermark with a bound the user set on the same parameter: the later one wins. */
function applyBound(query: Record<string, string | number | boolean>, param: string, bound: string | undefined): void {
  if (bound === undefined) return;
  const own = query[param];
  if (typeof own === 'string' && Date.parse(own) > Date.parse(bound)) return;
  query[param] = bound;
}

/** The run as a row of the destination's `_ferry_loads`. */
function loadOf(run: ExportRun): ExportLoad {
  const { counts } = run;
  return {
    loadId: run.runId,
    export: run.prepared.exp.name,
    resource: run.prepared.spec.resource,
    startedAt: run.startedAt,
    finishedAt: new Date().toISOString(),
    read: counts.read,
    written: counts.pushed,
    skipped: counts.skipped,
    deleted: counts.deleted,
    ...(run.changes ? { inserted: counts.created, updated: counts.updated, unchanged: counts.unchanged } : {}),
  };
}

function describeError(error: unknown): string {
  if (isFerryError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
