/**
 * A delete a change source yielded (`op: 'delete'`): the record's remote id
 * comes from mapping what the delete carries (the primary key, or the whole
 * old row), and the service's DELETE goes out only when the ledger holds
 * the record as pushed. Its outcome is recorded like an upsert's: deleted
 * in the ledger, or dead-lettered when the service refuses.
 */
import type { Logger } from 'pino';
import type { TargetType } from '../config/schema.js';
import type { CompiledMapping } from '../mapping/index.js';
import { isRecord } from '../sdk/guards.js';
import type { Pusher } from '../sink/index.js';
import type { DeadLetterStore, LedgerStore, RunCounts } from '../state/index.js';
import type { Unit } from './units.js';
import { boundedFailure } from './dead-letter-excerpt.js';

export interface SourceDeleteDeps {
  store: LedgerStore & DeadLetterStore;
  sync: string;
  kind: TargetType;
  mapping: CompiledMapping;
  sourceId: string;
  runId: string | null;
  counts: RunCounts;
  log: Logger;
  /** Undefined on a dry run: count, send nothing. */
  pusher: Pusher | undefined;
}

/** What became of one delete: `settled` once its outcome is recorded. */
export async function applySourceDelete(deps: SourceDeleteDeps, unit: Unit): Promise<void> {
  const remoteId = await remoteIdOfDelete(deps.mapping, unit);
  if (remoteId === undefined) {
    deps.counts.failed++;
    const reason = 'a delete from the source whose remote id could not be mapped: map.id must be computable from the primary key alone (or the table must log whole old rows, REPLICA IDENTITY FULL)';
    if (deps.pusher) {
      await deps.store.recordFailure(boundedFailure({ sync: deps.sync, runId: deps.runId, remoteId: null, origin: unit.origin, kind: 'invalid', reason, status: null, errorBody: null, body: null, sourceRecord: unit.input }));
    }
    deps.log.warn({ origin: unit.origin }, reason);
    return;
  }
  const known = (await deps.store.fingerprints(deps.sync, [remoteId])).get(remoteId);
  if (known?.status !== 'pushed') {
    // Never pushed (or already deleted): the service holds nothing to delete.
    deps.counts.unchanged++;
    return;
  }
  if (!deps.pusher) {
    deps.counts.deleted++;
    return;
  }
  const outcome = await deps.pusher.delete({ kind: deps.kind, remoteId, sourceId: deps.sourceId });
  if (outcome.ok || outcome.status === 404) {
    deps.counts.deleted++;
    await deps.store.recordDeleted(deps.sync, remoteId);
    return;
  }
  deps.counts.failed++;
  const { reason, status, errorBody } = outcome;
  await deps.store.recordFailure(boundedFailure({ sync: deps.sync, runId: deps.runId, remoteId, origin: unit.origin, kind: 'rejected', reason: `delete failed: ${reason}`, status, errorBody, body: null, sourceRecord: unit.input }));
}

async function remoteIdOfDelete(mapping: CompiledMapping, unit: Unit): Promise<string | undefined> {
  let mapped: Record<string, unknown> | undefined;
  try {
    mapped = await mapping.evaluate(unit.input);
  } catch (error) {
    const partial = isRecord(error) && isRecord(error.partial) ? error.partial : undefined;
    mapped = partial;
  }
  const id = mapped?.id;
  if (typeof id === 'string' && id.trim() !== '') return id;
  if ((typeof id === 'number' && Number.isFinite(id)) || typeof id === 'bigint') return String(id);
  return undefined;
}
