/**
 * One run of one sync: read → map → diff against the ledger → push →
 * checkpoint. Record-level failures are dead-lettered and the run goes on;
 * a runtime failure (service unreachable, auth refused, source lost) stops
 * reading, lets in-flight pushes finish, checkpoints, and is rethrown.
 */
import type { Logger } from 'pino';
import type { TargetType } from '../config/schema.js';
import { FieldTypeSampler, buildRequest, fingerprint } from '../mapping/index.js';
import { FerryError, isFerryError } from '../sdk/errors.js';
import { isRecord } from '../sdk/guards.js';
import type { CursorPosition, FieldType } from '../sdk/types.js';
import { ObjectTypeEvolver, Pusher, ensureTarget } from '../sink/index.js';
import type { SchemaChange, SinkService } from '../sink/index.js';
import type { RunCounts, StateStore } from '../state/index.js';
import { emptyCounts } from '../state/index.js';
import { CheckpointTracker } from './checkpoint-tracker.js';
import { planDeletes, scanKeys } from './deletes.js';
import { SeenSet } from './seen-set.js';
import { fieldHints } from './field-hints.js';
import type { PreparedSync } from './prepare.js';
import { toUnits } from './units.js';
import type { Unit } from './units.js';

export interface RunOptions {
  fullRefresh?: boolean;
  /** Map and diff, push nothing, write no state. */
  dryRun?: boolean;
  /** Let `deletes: mirror` delete above the guard threshold. */
  forceDeletes?: boolean;
  signal: AbortSignal;
  logger: Logger;
  concurrency: number;
  maxRequestsPerSecond: number;
  maxAttempts: number;
  /** Called with the counts as they change (throttled by the caller). */
  onProgress?: (counts: RunCounts) => void;
  /**
   * Re-process these units instead of reading the source (`failures retry`):
   * the cursor and deletes are left alone, and each unit's old dead-letter
   * entry is removed once it lands or fails anew.
   */
  replay?: AsyncIterable<Unit>;
  /** Dry runs: called for each mapped unit, for `ferry preview`. */
  onSample?: (sample: { origin: string; input: unknown; body?: Record<string, unknown>; error?: string; action: 'create' | 'update' | 'unchanged' | 'invalid' }) => void;
}

export type RunStatus = 'succeeded' | 'partial' | 'failed' | 'aborted';

export interface RunSummary {
  sync: string;
  runId: string | null;
  status: RunStatus;
  counts: RunCounts;
  durationMs: number;
  cursor: CursorPosition | null;
  changes: SchemaChange[];
  /** Dry runs: records that would be deleted by `deletes: mirror`. */
  wouldDelete?: number;
  error?: string;
  exitCode: 0 | 2 | 3;
}

const CHECKPOINT_EVERY = 500;
const CHECKPOINT_INTERVAL_MS = 2000;
const SAMPLE_UNITS = 200;
const LOCK_TTL_MS = 60_000;

export async function runSync(
  prepared: PreparedSync,
  deps: { store: StateStore; service: SinkService },
  options: RunOptions,
): Promise<RunSummary> {
  const { sync, source, mapping } = prepared;
  const { store, service } = deps;
  const dryRun = options.dryRun === true;
  const started = Date.now();
  const counts = emptyCounts();
  const log = options.logger.child({ sync: sync.name, connector: source.name });
  const kind: TargetType = sync.target.type;

  const owner = `${process.pid}:${Math.random().toString(36).slice(2)}`;
  if (!dryRun && !store.acquireLock(sync.name, owner, LOCK_TTL_MS)) {
    throw new FerryError('FERRY_SYNC_LOCKED', `another run of sync "${sync.name}" is in progress`, {
      hint: 'wait for it to finish; a crashed run releases its lock after 60 seconds',
    });
  }
  const renew = dryRun
    ? undefined
    : setInterval(() => {
        // A renewal that fails (state busy past its timeout) must not crash the
        // process; the lease still has two thirds of its time left.
        try {
          store.renewLock(sync.name, owner, LOCK_TTL_MS);
        } catch (error) {
          log.warn({ err: error }, 'could not renew the sync lock');
        }
      }, LOCK_TTL_MS / 3);
  renew?.unref();
  const runId = dryRun ? null : store.startRun(sync.name);
  const runLog = log.child({ runId });

  // SIGTERM (options.signal) stops reading but lets in-flight pushes finish;
  // `stop` aborts them too, and is only pulled when the run cannot go on.
  const stop = new AbortController();
  const readSignal = AbortSignal.any([options.signal, stop.signal]);
  let fatal: unknown;
  const tracker = new CheckpointTracker();
  let readComplete = false;
  let changes: SchemaChange[] = [];
  let wouldDelete: number | undefined;
  const seen = sync.deletes === 'mirror' && !options.replay ? new SeenSet() : undefined;
  // An incremental read only sees new and changed records; which ones vanished
  // takes a separate scan of every key.
  const keyScan = seen !== undefined && sync.incremental !== undefined;

  const storedCursor = options.fullRefresh || options.replay ? undefined : store.cursor(sync.name);
  const report = () => options.onProgress?.({ ...counts });

  let lastCheckpoint = Date.now();
  let finishedSinceCheckpoint = 0;
  const maybeCheckpoint = (force = false) => {
    if (dryRun) return;
    if (!force && finishedSinceCheckpoint < CHECKPOINT_EVERY && Date.now() - lastCheckpoint < CHECKPOINT_INTERVAL_MS) return;
    const position = tracker.safePosition();
    if (position) store.checkpoint(sync.name, position);
    else store.flush();
    if (runId) store.updateRun(runId, counts);
    // Off a TTY this is the progress a scheduler's log shows.
    runLog.info({ counts, pending: tracker.pending }, 'progress');
    finishedSinceCheckpoint = 0;
    lastCheckpoint = Date.now();
  };
  const finish = (seq: number) => {
    tracker.finish(seq);
    finishedSinceCheckpoint++;
    report();
    maybeCheckpoint();
  };

  const pusher = dryRun
    ? undefined
    : new Pusher({
        service,
        concurrency: options.concurrency,
        maxRequestsPerSecond: options.maxRequestsPerSecond,
        maxAttempts: options.maxAttempts,
        logger: runLog,
        signal: stop.signal,
      });

  const mapUnit = async (unit: Unit): Promise<{ unit: Unit; mapped?: Record<string, unknown>; error?: string }> => {
    try {
      return { unit, mapped: await mapping.evaluate(unit.input) };
    } catch (error) {
      return { unit, error: error instanceof Error ? error.message : String(error) };
    }
  };

  try {
    const records = options.replay ? undefined : source.read({
      options: prepared.options,
      baseDir: sync.baseDir,
      syncName: sync.name,
      logger: log,
      signal: readSignal,
      reportSkipped: () => {
        counts.skipped++;
      },
      ...(sync.incremental
        ? {
            incremental: {
              cursorField: sync.incremental.cursor,
              ...(storedCursor ? { after: storedCursor } : {}),
              ...(sync.incremental.lag !== undefined ? { lag: sync.incremental.lag } : {}),
            },
          }
        : {}),
      ...(primaryKeyOf(prepared) ? { primaryKey: primaryKeyOf(prepared)! } : {}),
    });
    const units = (options.replay ?? toUnits(records!, {
      ...(sync.group ? { groupBy: sync.group.by } : {}),
      ...(primaryKeyOf(prepared) ? { primaryKey: primaryKeyOf(prepared)! } : {}),
    }))[Symbol.asyncIterator]();

    // Rows need their object type before the first push; its field types are
    // declared, or inferred from the first units and the source's discover().
    const buffered: { unit: Unit; mapped?: Record<string, unknown>; error?: string }[] = [];
    const sampler = new FieldTypeSampler();
    const needsInference = kind === 'row';
    while (buffered.length < (needsInference ? SAMPLE_UNITS : 0)) {
      const next = await units.next();
      if (next.done) break;
      const entry = await mapUnit(next.value);
      if (entry.mapped) observeFields(sampler, entry.mapped);
      buffered.push(entry);
    }
    const hints = needsInference ? await fieldHints(prepared, log) : new Map<string, FieldType>();
    const ensured = await ensureTarget(service, sync.target, { inferredFields: sampler.types(hints), dryRun });
    changes = ensured.changes;
    const evolver = ensured.objectType
      ? new ObjectTypeEvolver({ service, target: sync.target, objectType: ensured.objectType, dryRun, logger: runLog })
      : undefined;

    const handle = async (entry: { unit: Unit; mapped?: Record<string, unknown>; error?: string }) => {
      counts.read++;
      const seq = tracker.begin(entry.unit.position);
      const settleReplayed = () => {
        if (!dryRun && entry.unit.failureId !== undefined) store.removeFailure(entry.unit.failureId);
      };
      const fail = (reason: string, field: string | null, body?: unknown) => {
        counts.failed++;
        settleReplayed();
        if (!dryRun) {
          store.recordFailure({
            sync: sync.name,
            runId,
            remoteId: typeof body === 'object' && body && 'id' in body ? String((body as { id: unknown }).id) : null,
            origin: entry.unit.origin,
            kind: 'invalid',
            reason: field && !reason.includes(field) ? `${field}: ${reason}` : reason,
            status: null,
            errorBody: null,
            body: body ?? null,
            sourceRecord: entry.unit.input,
          });
        }
        options.onSample?.({ origin: entry.unit.origin, input: entry.unit.input, error: reason, action: 'invalid' });
        runLog.debug({ origin: entry.unit.origin, reason }, 'record invalid');
        finish(seq);
      };
      if (!entry.mapped) return fail(entry.error ?? 'mapping failed', null);
      let mapped = entry.mapped;
      if (evolver && isRecord(mapped.fields)) {
        const resolved = await evolver.resolve(mapped.fields);
        if (resolved.rejected.length > 0) {
          return fail(resolved.reason ?? `fields not accepted by object type "${sync.target.objectType?.name}": ${resolved.rejected.join(', ')}`, 'fields');
        }
        mapped = { ...mapped, fields: resolved.fields };
      }
      const built = buildRequest(kind, mapped, {
        sourceId: ensured.sourceId,
        ...(evolver ? { objectTypeId: evolver.objectTypeId, fieldTypes: evolver.fieldTypes, fieldLabels: evolver.fieldLabels } : {}),
      });
      if (!built.ok) return fail(built.reason, built.field, built.partialBody);
      if (!keyScan) seen?.add(built.remoteId);
      const print = fingerprint(built.body);
      const known = store.fingerprints(sync.name, [built.remoteId]).get(built.remoteId);
      if (known && known.status === 'pushed' && known.fingerprint === print) {
        counts.unchanged++;
        settleReplayed();
        options.onSample?.({ origin: entry.unit.origin, input: entry.unit.input, body: built.body, action: 'unchanged' });
        return finish(seq);
      }
      if (dryRun || !pusher) {
        if (known?.status === 'pushed') counts.updated++;
        else counts.created++;
        options.onSample?.({ origin: entry.unit.origin, input: entry.unit.input, body: built.body, action: known?.status === 'pushed' ? 'update' : 'create' });
        return finish(seq);
      }
      await pusher.waitForCapacity();
      if (fatal) return; // the run is stopping: leave this record for the next run
      pusher
        .push({ kind, remoteId: built.remoteId, body: built.body })
        .then((outcome) => {
          settleReplayed();
          if (outcome.ok) {
            counts.pushed++;
            if (outcome.status === 'created') counts.created++;
            else counts.updated++;
            store.recordAcknowledged({ sync: sync.name, remoteId: built.remoteId, fingerprint: print, recordId: outcome.recordId, origin: entry.unit.origin });
          } else {
            counts.failed++;
            store.recordFailure({
              sync: sync.name,
              runId,
              remoteId: built.remoteId,
              origin: entry.unit.origin,
              kind: 'rejected',
              reason: outcome.reason,
              status: outcome.status,
              errorBody: outcome.errorBody,
              body: built.body,
              sourceRecord: entry.unit.input,
              fingerprint: print,
            });
          }
          finish(seq);
        })
        .catch((error: unknown) => {
          // After a fatal error the pusher rejects what is still queued with
          // FERRY_ABORTED: those records stay unfinished for the next run.
          if (stop.signal.aborted && isFerryError(error, 'FERRY_ABORTED')) return;
          fatal ??= error;
          stop.abort();
        });
    };

    for (const entry of buffered) {
      if (fatal || readSignal.aborted) break;
      await handle(entry);
    }
    buffered.length = 0;
    while (!fatal && !readSignal.aborted) {
      const next = await units.next();
      if (next.done) {
        readComplete = true;
        break;
      }
      await handle(await mapUnit(next.value));
    }
    if (!readComplete) await units.return?.();
    await pusher?.onIdle();

    if (readComplete && !fatal && seen) {
      if (keyScan) await scanKeys(prepared, seen, readSignal, log);
      const plan = planDeletes(store, sync.name, seen, sync.maxDeletePercent, options.forceDeletes === true);
      if (dryRun) {
        wouldDelete = plan.remoteIds.length;
      } else if (pusher) {
        for (const remoteId of plan.remoteIds) {
          const outcome = await pusher.delete({ kind, remoteId, sourceId: ensured.sourceId });
          if (outcome.ok || outcome.status === 404) {
            counts.deleted++;
            store.recordDeleted(sync.name, remoteId);
          } else {
            counts.failed++;
            store.recordFailure({ sync: sync.name, runId, remoteId, origin: null, kind: 'rejected', reason: `delete failed: ${outcome.reason}`, status: outcome.status, errorBody: outcome.errorBody, body: null, sourceRecord: null });
          }
          report();
        }
      }
    }
  } catch (error) {
    fatal ??= error;
    await pusher?.onIdle().catch(() => undefined);
  } finally {
    if (renew) clearInterval(renew);
    seen?.close();
  }

  const cursor = options.replay ? undefined : readComplete && !fatal ? tracker.finalPosition() : tracker.safePosition();
  const aborted = !fatal && options.signal.aborted;
  let status: RunStatus = fatal ? 'failed' : aborted ? 'aborted' : counts.failed > 0 ? 'partial' : 'succeeded';
  const errorText = fatal ? describeError(fatal) : aborted ? 'stopped by signal after checkpointing' : undefined;
  if (!dryRun) {
    try {
      if (cursor) store.checkpoint(sync.name, cursor);
      else store.flush();
      if (runId) store.finishRun(runId, { status, counts, error: errorText ?? null });
    } catch (error) {
      fatal ??= error;
      status = 'failed';
    } finally {
      store.releaseLock(sync.name, owner);
    }
  }
  report();
  const summary: RunSummary = {
    sync: sync.name,
    runId,
    status,
    counts,
    durationMs: Date.now() - started,
    cursor: dryRun ? (storedCursor ?? null) : (store.cursor(sync.name) ?? null),
    changes,
    ...(wouldDelete !== undefined ? { wouldDelete } : {}),
    ...(errorText ? { error: errorText } : {}),
    exitCode: status === 'succeeded' ? 0 : status === 'partial' ? 2 : 3,
  };
  runLog.info({ status, counts, durationMs: summary.durationMs }, 'run finished');
  if (fatal && isFerryError(fatal)) throw Object.assign(fatal, { summary });
  if (fatal) throw new FerryError('FERRY_SOURCE_READ_FAILED', describeError(fatal), { cause: fatal, where: `sync ${sync.name}`, details: { summary } });
  return summary;
}

function primaryKeyOf(prepared: PreparedSync): string[] | undefined {
  const pk = (prepared.options as { primaryKey?: unknown } | null)?.primaryKey;
  if (typeof pk === 'string') return [pk];
  if (Array.isArray(pk) && pk.every((k) => typeof k === 'string')) return pk as string[];
  return undefined;
}

function observeFields(sampler: FieldTypeSampler, mapped: Record<string, unknown>): void {
  if (!isRecord(mapped.fields)) return;
  for (const [name, value] of Object.entries(mapped.fields)) sampler.observe(name, value);
}

function describeError(error: unknown): string {
  if (isFerryError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
