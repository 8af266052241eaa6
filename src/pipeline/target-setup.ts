/**
 * Before the first push, the sync's target must exist: its source and, for
 * rows, its object type. An object type's field types are declared, or
 * inferred from the first units read (and the source's discover() types);
 * those units are handed back mapped, to be processed first.
 */
import type { Logger } from 'pino';
import { FieldTypeSampler, inferFieldType } from '../mapping/index.js';
import { isRecord } from '../sdk/guards.js';
import type { FieldType } from '../sdk/types.js';
import { ObjectTypeEvolver, ensureTarget } from '../sink/index.js';
import type { SchemaChange, SinkService } from '../sink/index.js';
import { fieldHints } from './field-hints.js';
import type { PreparedSync } from './prepare.js';
import { mapUnit } from './build-units.js';
import type { MappedUnit } from './build-units.js';
import type { Unit } from './units.js';

/** Units sampled to infer an object type's field types. */
export const SAMPLE_UNITS = 200;

export interface TargetSetup {
  sourceId: string;
  evolver: ObjectTypeEvolver | undefined;
  changes: SchemaChange[];
  /** The units read for sampling, mapped, in read order. */
  sampled: MappedUnit[];
}

export async function setUpTarget(
  prepared: PreparedSync,
  next: () => Promise<Unit | undefined>,
  deps: { service: SinkService; dryRun: boolean; log: Logger },
): Promise<TargetSetup> {
  const { sync, mapping } = prepared;
  const needsInference = sync.target.type === 'row';
  const sampled: MappedUnit[] = [];
  const sampler = new FieldTypeSampler();
  while (needsInference && sampled.length < SAMPLE_UNITS) {
    const unit = await next();
    if (unit === undefined) break;
    const entry = await mapUnit(mapping, unit);
    if (entry.mapped) observeFields(sampler, entry.mapped);
    sampled.push(entry);
  }
  const hints = needsInference ? await fieldHints(prepared, deps.log) : new Map<string, FieldType>();
  const ensured = await ensureTarget(deps.service, sync.target, { inferredFields: sampler.types(hints), sampledRecords: sampled.length, dryRun: deps.dryRun });
  const evolver = ensured.objectType
    ? new ObjectTypeEvolver({
        service: deps.service,
        target: sync.target,
        objectType: ensured.objectType,
        // The sampler's inference and hints: a field's type does not depend on whether it appeared in the sample.
        inferType: (field, sample) => inferFieldType([sample], hints.get(field)),
        dryRun: deps.dryRun,
        logger: deps.log,
      })
    : undefined;
  return { sourceId: ensured.sourceId, evolver, changes: ensured.changes, sampled };
}

function observeFields(sampler: FieldTypeSampler, mapped: Record<string, unknown>): void {
  if (!isRecord(mapped.fields)) return;
  for (const [name, value] of Object.entries(mapped.fields)) sampler.observe(name, value);
}
