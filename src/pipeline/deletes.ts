/**
 * `deletes: mirror`: records the ledger knows as pushed but a complete read
 * did not see are deleted in the service, unless that would delete more than
 * the configured share of them (a truncated export or a wrong path looks just
 * like a mass deletion).
 */
import type { Logger } from 'pino';
import { compileMapping } from '../mapping/index.js';
import { FerryError } from '../sdk/errors.js';
import type { Pusher } from '../sink/index.js';
import type { DeadLetterStore, LedgerStore, RunCounts } from '../state/index.js';
import type { PreparedSync } from './prepare.js';
import type { SeenIds } from './seen-ids.js';
import { toUnits } from './units.js';

export interface MirrorDeletesContext {
  prepared: PreparedSync;
  store: LedgerStore & DeadLetterStore;
  runId: string | null;
  /** Undefined on a dry run: count what would be deleted, delete nothing. */
  pusher: Pusher | undefined;
  sourceId: string;
  /** The ids the complete read saw; completed here by a key scan when the read was incremental. */
  seen: SeenIds;
  force: boolean;
  counts: RunCounts;
  signal: AbortSignal;
  log: Logger;
  onProgress: () => void;
}

/**
 * `deletes: mirror` after a complete read: deletes what the ledger holds but
 * the source no longer does. Returns how many would be deleted on a dry run.
 */
export async function mirrorDeletes(ctx: MirrorDeletesContext): Promise<number | undefined> {
  const { prepared, store, pusher } = ctx;
  const { sync } = prepared;
  // An incremental read only sees new and changed records; which ones vanished takes a scan of every key.
  if (sync.incremental !== undefined) await scanKeys(prepared, ctx.seen, ctx.signal, ctx.log);
  const planned = await planDeletes(store, sync.name, ctx.seen, sync.maxDeletePercent, ctx.force);
  if (!pusher) return planned;
  if (planned > 0) await deleteVanished(ctx, pusher);
  return undefined;
}

/**
 * How many live records the read did not see; refuses (FERRY_MASS_DELETE_REFUSED)
 * when that is above `maxDeletePercent` of them, unless forced. Only counts:
 * the ids are listed again, a page at a time, as they are deleted.
 */
export async function planDeletes(store: LedgerStore, sync: string, seen: Pick<SeenIds, 'has'>, maxDeletePercent: number, force: boolean): Promise<number> {
  let vanished = 0;
  for await (const _remoteId of vanishedIds(store, sync, seen)) vanished++;
  const live = await store.countLive(sync);
  const percent = live === 0 ? 0 : (vanished / live) * 100;
  if (!force && vanished > 0 && percent > maxDeletePercent) {
    throw new FerryError(
      'FERRY_MASS_DELETE_REFUSED',
      `sync "${sync}" would delete ${vanished} of ${live} records (${percent.toFixed(1)}%), above maxDeletePercent ${maxDeletePercent}%`,
      { hint: 'check the source is complete; raise maxDeletePercent or run with --force-deletes to delete anyway' },
    );
  }
  return vanished;
}

/**
 * Deletes the live records the read did not see, as many at once as the
 * pusher allows (its concurrency, rate and retry policy): one at a time, each
 * delete would wait out the service's whole latency. Nothing is held per record
 * beyond the requests in flight and queued.
 */
async function deleteVanished(ctx: MirrorDeletesContext, pusher: Pusher): Promise<void> {
  const { prepared, store, counts } = ctx;
  const { sync } = prepared;
  const inFlight = new Set<Promise<void>>();
  let fatal: { error: unknown } | undefined;
  const settle = async (remoteId: string, outcome: Awaited<ReturnType<Pusher['delete']>>): Promise<void> => {
    if (outcome.ok || outcome.status === 404) {
      counts.deleted++;
      await store.recordDeleted(sync.name, remoteId);
    } else {
      counts.failed++;
      const { reason, status, errorBody } = outcome;
      await store.recordFailure({ sync: sync.name, runId: ctx.runId, remoteId, origin: null, kind: 'rejected', reason: `delete failed: ${reason}`, status, errorBody, body: null, sourceRecord: null });
    }
    ctx.onProgress();
  };
  for await (const remoteId of vanishedIds(store, sync.name, ctx.seen)) {
    await pusher.waitForCapacity();
    if (fatal) break;
    const deleting: Promise<void> = pusher
      .delete({ kind: sync.target.type, remoteId, sourceId: ctx.sourceId })
      .then((outcome) => settle(remoteId, outcome))
      .catch((error: unknown) => {
        fatal ??= { error };
      })
      .finally(() => inFlight.delete(deleting));
    inFlight.add(deleting);
  }
  await Promise.all(inFlight);
  if (fatal) throw fatal.error;
}

/** The live ids of the ledger the read did not see, a page of the ledger at a time. */
async function* vanishedIds(store: LedgerStore, sync: string, seen: Pick<SeenIds, 'has'>): AsyncIterable<string> {
  for await (const page of store.liveRemoteIdPages(sync)) {
    for (const remoteId of page) if (!seen.has(remoteId)) yield remoteId;
  }
}

/**
 * Collect the remote id of every record the source holds now: a full read
 * (no cursor) that evaluates only `map.id`. Used when an incremental read
 * cannot tell which records vanished.
 */
export async function scanKeys(prepared: PreparedSync, seen: SeenIds, signal: AbortSignal, logger: Logger): Promise<void> {
  const { sync, source } = prepared;
  const compiled = compileMapping({ id: sync.target.map.id ?? null });
  if ('errors' in compiled) throw new FerryError('FERRY_CONFIG_INVALID', `map.id of sync "${sync.name}" does not compile`);
  const records = source.read({ options: prepared.options, baseDir: sync.baseDir, syncName: sync.name, logger, signal });
  for await (const unit of toUnits(records, sync.group ? { groupBy: sync.group.by } : {})) {
    if (signal.aborted) throw new FerryError('FERRY_ABORTED', 'stopped during the key scan for deletes: mirror');
    const { id } = await compiled.mapping.evaluate(unit.input);
    if (typeof id === 'string' && id !== '') seen.add(id);
    else if (typeof id === 'number' || typeof id === 'bigint') seen.add(String(id));
  }
}
