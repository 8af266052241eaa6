/**
 * One run of one sync: read → map → diff against the ledger → push →
 * checkpoint. Record-level failures are dead-lettered and the run goes on;
 * a runtime failure (service unreachable, auth refused, source lost) stops
 * reading, lets in-flight pushes finish, checkpoints, and is rethrown.
 *
 * The parts, each in its own module: the run lease (one run per sync,
 * src/state/run-lease.ts), the target setup (target-setup.ts), the unit
 * processor (unit-processor.ts), the checkpointer (checkpointer.ts), deletes
 * (deletes.ts) and the summary (run-summary.ts). This file reads the source
 * and puts them in order.
 */
import type { Logger } from 'pino';
import { FerryError, isFerryError } from '../sdk/errors.js';
import type { BufferedIterator, CursorPosition, ReadContext, ReadPartition, SourceLag } from '../sdk/types.js';
import { Pusher, pushLimits } from '../sink/index.js';
import type { PushLimits, SchemaChange, SinkService } from '../sink/index.js';
import type { RunCounts, ServiceLimits, StateStore } from '../state/index.js';
import type { RateShare } from '../sdk/transport/control/rate-share.js';
import { emptyCounts } from '../state/index.js';
import { RunLease } from '../state/run-lease.js';
import { Checkpointer } from './checkpointer.js';
import { mirrorDeletes } from './deletes.js';
import { primaryKeyOf, type PreparedSync } from './prepare.js';
import { RunStop } from './run-stop.js';
import { exitCodeOf, runErrorText, runFailure, runStatus } from './run-summary.js';
import type { RunEnding, RunSummary } from './run-summary.js';
import { DuplicateIds } from './duplicate-ids.js';
import { seenIds, type SeenIds } from './seen-ids.js';
import { setUpTarget } from './target-setup.js';
import { withSetupLock } from './setup-lock.js';
import { SourceFingerprinter } from './source-fingerprint.js';
import { UnitProcessor } from './unit-processor.js';
import type { UnitSample } from './apply-plan.js';
import type { BatchLook } from './ledger-look.js';
import { toUnits } from './units.js';
import { LoopSlices } from './fast/loop-slices.js';
import type { Unit } from './units.js';
import { ChangeBatches, splitAtRepeatedKeys } from './change-batches.js';

export type { RunStatus, RunSummary } from './run-summary.js';

/**
 * Units read and mapped before they are processed together: one ledger query
 * per batch. Small, so a stop signal or a fatal error is noticed soon and a
 * checkpoint is never far behind.
 */
const UNIT_BATCH = 256;
/** How long the object type's sample waits for a change source's first unit (a new slot waits for running transactions), and for each after it. */
const CHANGE_FIRST_SAMPLE_WAIT_MS = 5000;
const CHANGE_SAMPLE_WAIT_MS = 20;
/** Requests a run sends before {@link SyncRun.reportCeiling} may say the ceiling held it: a short run's pace says little. */
const CEILING_NOTE_MIN_REQUESTS = 100;
/** Requests a run sends before what its push settled on is kept for the next run (see SyncRun.keepLearntLimits). */
const LEARNT_MIN_REQUESTS = 200;

export interface RunOptions {
  fullRefresh?: boolean;
  /** Map and diff, push nothing, write no state. */
  dryRun?: boolean;
  /** Let `deletes: mirror` delete above the guard threshold. */
  forceDeletes?: boolean;
  signal: AbortSignal;
  logger: Logger;
  /** Upper bound of the adaptive concurrency (service.concurrency); unset, it finds the service's. */
  concurrency?: number | undefined;
  /** Upper bound of the adaptive rate (service.maxRequestsPerSecond); unset, it finds the service's. */
  maxRequestsPerSecond?: number | undefined;
  /**
   * The service the limits are learnt for (its base URL): the push starts near
   * what the last run learnt of it, and this run's findings replace that.
   */
  limitsKey?: string | undefined;
  /** What processes sharing the API key learn together: the push starts at its share of the rate learnt service-wide. */
  share?: RateShare | undefined;
  maxAttempts: number;
  /** Keep retrying while the service fails every request for less than this. @default 0 */
  outageBudgetMs?: number;
  /** Called with the counts as they change (throttled by the caller). */
  onProgress?: (counts: RunCounts, limits?: PushLimits) => void;
  /**
   * Re-process these units instead of reading the source (`failures retry`):
   * the cursor and deletes are left alone, and each unit's old dead-letter
   * entry is removed once it lands or fails anew.
   */
  replay?: AsyncIterable<Unit>;
  /** Called once the run has started, with objects that stay live until it ends (metrics read them when scraped). */
  onRunStart?: (run: LiveRun) => void;
  /** Called after each checkpoint is written, the final one included (a trace's interval spans). */
  onCheckpoint?: (counts: Readonly<RunCounts>) => void;
  /** Dry runs: called for each mapped unit, for `ferry preview`. */
  onSample?: (sample: UnitSample) => void;
  /** Read only this slice of a partitioned sync (see partitions.ts, which also keys its state). */
  partition?: ReadPartition;
  /** `ferry run --follow`: a source that follows (SourceDefinition.follows) reads until the signal aborts. */
  follow?: boolean;
}

/** A run in progress, as observers see it: its counts (updated in place) and its pusher (absent on dry runs). */
export interface LiveRun {
  counts: Readonly<RunCounts>;
  pusher?: Pusher;
  /** The source's last reported lag (ReadContext.reportLag), updated in place. */
  sourceLag?: SourceLag;
}

export async function runSync(
  prepared: PreparedSync,
  deps: { store: StateStore; service: SinkService },
  options: RunOptions,
): Promise<RunSummary> {
  const { sync } = prepared;
  const log = options.logger.child({ sync: sync.name, connector: prepared.source.name });
  if (options.dryRun === true) return new SyncRun(prepared, deps, options, null, log).run();
  const lease = await RunLease.acquire(deps.store, sync.name, `sync "${sync.name}"`, log);
  let runId: string;
  let learnt: ServiceLimits | undefined;
  try {
    runId = await deps.store.startRun(sync.name);
    learnt = options.limitsKey === undefined ? undefined : (await deps.store.serviceLimits()).find((l) => l.service === options.limitsKey);
  } catch (error) {
    await lease.release();
    throw error;
  }
  return new SyncRun(prepared, deps, options, runId, log.child({ runId }), lease, learnt).run();
}

/** The state of one run while it goes; {@link run} is its whole life. */
class SyncRun {
  private readonly started = Date.now();
  private readonly counts = emptyCounts();
  private readonly dryRun: boolean;
  private readonly stop: RunStop;
  private readonly checkpointer: Checkpointer;
  private readonly pusher: Pusher | undefined;
  /** Remote ids seen, for `deletes: mirror` after a complete read (not on replays). */
  private readonly seen: SeenIds | undefined;
  private readonly duplicates: DuplicateIds;
  private storedCursor: CursorPosition | undefined;
  private readComplete = false;
  private changes: SchemaChange[] = [];
  private sourceId = '';
  private processor: UnitProcessor | undefined;
  /** Reading and preparing a batch share the event loop with the pushes' answers in short slices. */
  private readonly slices = new LoopSlices();
  private wouldDelete: number | undefined;
  /** The source reads changes (SourceDefinition.changes): see processChanges. */
  private readonly readsChanges: boolean;
  private readonly sourceLag: SourceLag = {};

  constructor(
    private readonly prepared: PreparedSync,
    private readonly deps: { store: StateStore; service: SinkService },
    private readonly options: RunOptions,
    private readonly runId: string | null,
    private readonly log: Logger,
    private readonly lease?: RunLease,
    learnt?: ServiceLimits,
  ) {
    this.dryRun = options.dryRun === true;
    this.readsChanges = prepared.source.changes === true && !options.replay;
    this.stop = new RunStop(options.signal);
    this.checkpointer = new Checkpointer(this.dryRun ? undefined : deps.store, prepared.sync.name, runId, this.counts, log, options.onCheckpoint, this.readsChanges);
    this.seen = prepared.sync.deletes === 'mirror' && !options.replay ? seenIds() : undefined;
    this.duplicates = new DuplicateIds(log);
    this.pusher = this.dryRun
      ? undefined
      : new Pusher({
          service: deps.service,
          ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
          ...(options.maxRequestsPerSecond === undefined ? {} : { maxRequestsPerSecond: options.maxRequestsPerSecond }),
          ...(learnt ? { learnt: { concurrency: learnt.concurrency, ...(learnt.rate === undefined ? {} : { rate: learnt.rate }) } } : {}),
          ...(options.share ? { share: options.share } : {}),
          maxAttempts: options.maxAttempts,
          ...(options.outageBudgetMs === undefined ? {} : { outageBudgetMs: options.outageBudgetMs }),
          logger: log,
          signal: this.stop.pushSignal,
        });
  }

  async run(): Promise<RunSummary> {
    this.options.onRunStart?.({ counts: this.counts, sourceLag: this.sourceLag, ...(this.pusher ? { pusher: this.pusher } : {}) });
    try {
      if (!this.options.fullRefresh && !this.options.replay) this.storedCursor = await this.deps.store.cursor(this.prepared.sync.name);
      await this.pushAll();
      if (this.readComplete && !this.stop.failed && this.seen) await this.deleteVanished();
    } catch (error) {
      this.stop.fail(error);
      await this.processor?.drain().catch(() => undefined);
    } finally {
      this.seen?.close();
      this.duplicates.close();
    }
    return this.finish();
  }

  /** Reads every unit and processes it in read order; returns once every outcome is recorded. */
  private async pushAll(): Promise<void> {
    const units = this.openUnits();
    const next = () => nextUnit(units, this.prepared.sync.name);
    const take = bufferedUnits(units, this.prepared.sync.name);
    // A change source at rest may hand over nothing for hours: the sample takes what comes promptly.
    const changeReader = this.readsChanges ? new ChangeBatches(next) : undefined;
    let waitMs = CHANGE_FIRST_SAMPLE_WAIT_MS;
    const sampleNext = changeReader
      ? () => {
          const unit = changeReader.nextWithin(waitMs);
          waitMs = CHANGE_SAMPLE_WAIT_MS;
          return unit;
        }
      : next;
    const setUp = () => setUpTarget(this.prepared, sampleNext, { service: this.deps.service, dryRun: this.dryRun, log: this.log });
    // The slices of a partitioned sync share the target: one sets it up at a time, so they do not race to create it.
    const target = this.options.partition && !this.dryRun
      ? await withSetupLock(this.deps.store, this.prepared.sync.name, this.log, this.stop.pushSignal, setUp)
      : await setUp();
    this.changes = target.changes;
    this.sourceId = target.sourceId;
    const keyScan = this.prepared.sync.incremental !== undefined;
    const processor = (this.processor = new UnitProcessor({
      store: this.deps.store,
      sync: this.prepared.sync,
      mapping: this.prepared.mapping,
      sourcePrints: SourceFingerprinter.for(this.prepared, target, this.dryRun),
      runId: this.runId,
      dryRun: this.dryRun,
      counts: this.counts,
      log: this.log,
      checkpointer: this.checkpointer,
      pusher: this.pusher,
      stop: this.stop,
      sourceId: target.sourceId,
      evolver: target.evolver,
      seen: keyScan ? undefined : this.seen,
      duplicates: this.duplicates,
      onSample: this.options.onSample,
      onProgress: () => this.report(),
      slices: this.slices,
      changes: this.readsChanges,
    }));
    try {
      if (this.readsChanges) {
        for (const run of splitAtRepeatedKeys(target.sampled, UNIT_BATCH)) {
          if (this.stop.stopping) break;
          await processor.processBatch(run);
          await processor.drain();
        }
      } else {
        for (let i = 0; i < target.sampled.length && !this.stop.stopping; i += UNIT_BATCH) {
          await processor.processBatch(target.sampled.slice(i, i + UNIT_BATCH));
        }
      }
      if (changeReader) await this.processChanges(processor, changeReader);
      else await this.processRest(processor, next, take);
    } finally {
      if (!this.readComplete) await units.return?.();
    }
    await processor.drain();
    this.reportCeiling();
  }

  /**
   * Says once when the configured rate bound, not the service, set the pace
   * of most of the run's requests: a run held to `maxRequestsPerSecond`
   * looks like a slow service otherwise.
   */
  private reportCeiling(): void {
    const stats = this.pusher?.stats();
    if (!stats || stats.ceiling === undefined || stats.requests < CEILING_NOTE_MIN_REQUESTS || stats.heldByCeiling * 2 < stats.requests) return;
    this.log.warn(
      { ceiling: stats.ceiling, requests: stats.requests, heldByCeiling: stats.heldByCeiling },
      `pushes went at the configured rate bound of ${stats.ceiling} requests/s (${stats.heldByCeiling} of ${stats.requests} requests waited for it), not at what the service allowed: if it allows more, raise service.maxRequestsPerSecond (or the sync's), or remove it and ferry finds the service's limit`,
    );
  }

  /**
   * Reads and processes the rest of the source, a batch at a time, until it
   * ends or the run stops. Each batch's ledger look is asked for before the
   * batch ahead of it is processed (see LedgerLook.lookAhead), so a store
   * that answers on another thread or server answers meanwhile.
   */
  private async processRest(processor: UnitProcessor, next: () => Promise<Unit | undefined>, take: ((max: number) => Unit[]) | undefined): Promise<void> {
    let ahead: { batch: Unit[]; look: BatchLook } | undefined;
    try {
      while (!this.stop.stopping) {
        const { batch, ended } = await this.readBatch(next, take);
        const read = batch.length > 0 ? { batch, look: processor.lookAhead(batch) } : undefined;
        let handledAll = ahead === undefined || (await processor.processBatch(ahead.batch, ahead.look));
        ahead = read;
        if (!ended) continue;
        if (handledAll && read !== undefined && !this.stop.stopping) {
          ahead = undefined;
          handledAll = await processor.processBatch(read.batch, read.look);
        }
        // Complete only if every unit read was handled: `deletes: mirror` trusts what the read saw.
        this.readComplete = handledAll && ahead === undefined;
        return;
      }
    } finally {
      // A look still out (the run stopped): let it end before the run returns and the store may close.
      await ahead?.look.catch(() => undefined);
    }
  }

  /**
   * A change source's units: batches without a repeated key, each drained
   * (every outcome recorded) before the next is looked up, so the second
   * change of a record is judged against the ledger the first one left;
   * while the source is at rest, landed positions are checkpointed (see
   * ChangeBatches).
   */
  private async processChanges(processor: UnitProcessor, reader: ChangeBatches): Promise<void> {
    while (!this.stop.stopping) {
      const { batch, ended } = await reader.read(UNIT_BATCH, () => this.checkpointer.idle(), () => this.stop.stopping);
      let handledAll = true;
      if (batch.length > 0) {
        handledAll = await processor.processBatch(batch);
        await processor.drain();
      }
      if (ended) {
        this.pusher?.endOfInput();
        this.readComplete = handledAll && !this.stop.stopping;
        return;
      }
    }
  }

  /**
   * Up to UNIT_BATCH units, and whether the source ended. Units the source
   * already holds are taken first (`take`, when it offers them), without a
   * promise each; `next()` waits for more, or finds the end.
   */
  private async readBatch(next: () => Promise<Unit | undefined>, take: ((max: number) => Unit[]) | undefined): Promise<{ batch: Unit[]; ended: boolean }> {
    const batch: Unit[] = [];
    while (batch.length < UNIT_BATCH) {
      const turn = this.slices.due();
      if (turn) await turn;
      if (take) {
        const taken = take(UNIT_BATCH - batch.length);
        if (taken.length > 0) {
          for (const unit of taken) batch.push(unit);
          continue;
        }
      }
      const unit = await next();
      if (unit === undefined) {
        // At most these batches and the pusher's queue are left: no more probing for a higher rate limit.
        this.pusher?.endOfInput();
        return { batch, ended: true };
      }
      batch.push(unit);
    }
    return { batch, ended: false };
  }

  private openUnits(): BufferedIterator<Unit> {
    if (this.options.replay) return this.options.replay[Symbol.asyncIterator]();
    const { prepared, storedCursor } = this;
    const { sync } = prepared;
    const primaryKey = primaryKeyOf(prepared);
    const records = prepared.source.read({
      options: prepared.options,
      baseDir: sync.baseDir,
      syncName: sync.name,
      logger: this.log,
      signal: this.stop.readSignal,
      // Skipped input yielded no record; a repaired one did, and is counted as read (and pushed or failed) too.
      reportSkipped: (input) => {
        if (input.action === 'repaired') this.counts.repaired = (this.counts.repaired ?? 0) + 1;
        else this.counts.skipped++;
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
      ...(primaryKey ? { primaryKey } : {}),
      ...(this.options.partition ? { partition: this.options.partition } : {}),
      ...(this.readsChanges ? this.changeContext() : {}),
    });
    const group = sync.group ? { groupBy: sync.group.by, sortedByGroup: sync.group.sorted === true } : {};
    return toUnits(records, { ...group, ...(primaryKey ? { primaryKey } : {}) })[Symbol.asyncIterator]();
  }

  /** What a change source's read() gets beyond the usual: where to resume, whether to follow, checkpoint and lag hooks. */
  private changeContext(): Pick<ReadContext<unknown>, 'resumeFrom' | 'follow' | 'onCheckpoint' | 'reportLag'> {
    const stored = this.storedCursor?.value;
    return {
      ...(typeof stored === 'string' ? { resumeFrom: stored } : {}),
      ...(this.options.follow === true ? { follow: true } : {}),
      onCheckpoint: (listener) => this.checkpointer.listen((position, final) => listener(position === undefined ? undefined : String(position.value), final)),
      reportLag: (lag) => {
        for (const key of Object.keys(this.sourceLag) as (keyof SourceLag)[]) delete this.sourceLag[key];
        Object.assign(this.sourceLag, lag);
      },
    };
  }

  private async deleteVanished(): Promise<void> {
    const wouldDelete = await mirrorDeletes({
      prepared: this.prepared,
      store: this.deps.store,
      runId: this.runId,
      pusher: this.pusher,
      sourceId: this.sourceId,
      seen: this.seen!,
      force: this.options.forceDeletes === true,
      counts: this.counts,
      signal: this.stop.readSignal,
      log: this.log,
      onProgress: () => this.report(),
    });
    if (this.dryRun) this.wouldDelete = wouldDelete;
  }

  /** Final checkpoint, the run's row, the lease, the summary; throws the run's fatal error with the summary attached. */
  private async finish(): Promise<RunSummary> {
    // It sends no more: the other processes sharing the API key split the learnt rate without it.
    this.pusher?.control.close();
    const { store } = this.deps;
    const sync = this.prepared.sync.name;
    const tracker = this.checkpointer.tracker;
    const cursor = this.options.replay ? undefined : this.readComplete && !this.stop.failed ? tracker.finalPosition() : tracker.safePosition();
    // Under --follow a stop signal is how a run ends: what landed is checkpointed, nothing was cut short.
    const ending: RunEnding = { fatal: this.stop.failure, aborted: !this.stop.failed && this.options.signal.aborted && this.options.follow !== true, counts: this.counts };
    let status = runStatus(ending);
    const error = runErrorText(ending);
    if (!this.dryRun) {
      try {
        await this.checkpointer.final(cursor);
        if (this.runId) await store.finishRun(this.runId, { status, counts: this.counts, error: error ?? null });
        await this.keepLearntLimits();
      } catch (stateError) {
        this.stop.fail(stateError);
        status = 'failed';
      } finally {
        await this.endCheckpoints();
        await this.lease?.release();
      }
    } else {
      await this.endCheckpoints();
    }
    this.report();
    const summary: RunSummary = {
      sync,
      runId: this.runId,
      status,
      counts: this.counts,
      durationMs: Date.now() - this.started,
      cursor: this.dryRun ? (this.storedCursor ?? null) : ((await store.cursor(sync)) ?? null),
      changes: this.changes,
      ...(this.wouldDelete !== undefined ? { wouldDelete: this.wouldDelete } : {}),
      ...(this.duplicates.examples.length > 0 ? { duplicates: this.duplicates.examples } : {}),
      ...(this.pusher && this.pusher.stats().requests > 0 ? { limits: pushLimits(this.pusher.stats()) } : {}),
      ...(error ? { error } : {}),
      exitCode: exitCodeOf(status, this.stop.failure?.error),
    };
    this.log.info({ status, counts: this.counts, durationMs: summary.durationMs, ...(summary.limits ? { limits: summary.limits } : {}) }, 'run finished');
    const failure = this.stop.failure;
    if (failure) throw runFailure(failure.error, summary);
    return summary;
  }

  /**
   * What the push learnt of the service, for `ferry status` and the next run:
   * only from a run that sent enough to have learnt something (a short run's
   * limits are still the cold start's).
   */
  private async keepLearntLimits(): Promise<void> {
    const stats = this.pusher?.stats();
    if (!stats || this.options.limitsKey === undefined || stats.requests < LEARNT_MIN_REQUESTS) return;
    const limits = pushLimits(stats);
    await this.deps.store.recordServiceLimits({
      service: this.options.limitsKey,
      concurrency: limits.concurrency,
      concurrencyReason: limits.concurrencyReason,
      ...(limits.rateReason === 'throttled' && limits.rate !== undefined ? { rate: limits.rate } : {}),
      rateReason: limits.rateReason,
      learntAt: new Date().toISOString(),
    });
  }

  /** The last word to a change source's checkpoint listeners: it may now confirm upstream and let go of its connection. */
  private async endCheckpoints(): Promise<void> {
    await this.checkpointer.end().catch((error: unknown) => this.log.warn({ err: error }, 'the source failed to take in the final checkpoint'));
  }

  private report(): void {
    if (!this.options.onProgress) return;
    const stats = this.pusher?.stats();
    this.options.onProgress({ ...this.counts }, stats && stats.requests > 0 ? pushLimits(stats) : undefined);
  }
}

/**
 * The next unit, or undefined at the end. A source that throws something
 * other than a FerryError failed its read. One `then` rather than an async
 * function around an `await`: it runs once per record.
 */
function nextUnit(units: AsyncIterator<Unit>, sync: string): Promise<Unit | undefined> {
  let next: Promise<IteratorResult<Unit>>;
  try {
    next = units.next();
  } catch (error) {
    return Promise.reject(readFailure(error, sync));
  }
  return next.then(
    (result) => (result.done ? undefined : result.value),
    (error: unknown) => {
      throw readFailure(error, sync);
    },
  );
}

/**
 * The units the source already holds, taken synchronously (up to `max`,
 * possibly none), when its iterator offers that; failures as nextUnit
 * reports them.
 */
function bufferedUnits(units: BufferedIterator<Unit>, sync: string): ((max: number) => Unit[]) | undefined {
  if (typeof units.takeBuffered !== 'function') return undefined;
  const take = units.takeBuffered.bind(units);
  return (max) => {
    try {
      return take(max);
    } catch (error) {
      throw readFailure(error, sync);
    }
  };
}

function readFailure(error: unknown, sync: string): unknown {
  if (isFerryError(error)) return error;
  return new FerryError('FERRY_SOURCE_READ_FAILED', `the source of sync "${sync}" failed while being read: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
    where: `sync ${sync}`,
    hint: 'see the cause; the next run resumes from the last checkpoint',
  });
}
