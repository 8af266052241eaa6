/**
 * Make sure the service-side source (and, for rows, object type) of a target
 * exists and has the fields the sync needs, creating or evolving them. With
 * `dryRun` it only reads and reports the plan.
 */
import { FerryError } from '../sdk/errors.js';
import type { FieldType } from '../sdk/types.js';
import type { TargetConfig } from '../config/schema.js';
import type { ObjectTypeResponse, SourceResponse } from '../api/schemas/read.js';
import { changeToRequest, checkFieldLimit, mergeFields, targetObjectType } from './field-schema.js';
import type { FieldChange, TargetObjectType, WantedField } from './field-schema.js';
import { statusOf } from './service-port.js';
import type { SinkService } from './service-port.js';

export type SchemaChange =
  | { kind: 'create-source'; name: string }
  | { kind: 'create-object-type'; name: string; fields: FieldChange[] }
  | { kind: 'add-fields'; name: string; fields: FieldChange[] };

export interface EnsureTargetOptions {
  /** Field types inferred from discover() or the data; declared fields win over them. */
  inferredFields?: ReadonlyMap<string, FieldType>;
  /** How many records the inference sampled (0: the source was empty); unknown when not given. */
  sampledRecords?: number;
  /** Compute the changes without writing anything. */
  dryRun?: boolean;
}

export interface EnsuredTarget {
  /** The source's id; {@link PLANNED_ID} in a dry run when it does not exist yet. */
  sourceId: string;
  /** Row targets only. */
  objectType?: TargetObjectType;
  changes: SchemaChange[];
}

/**
 * Stand-in id for a source or object type a dry run would create. A valid
 * UUID (the nil UUID), so previews of mapped bodies still validate.
 */
export const PLANNED_ID = '00000000-0000-0000-0000-000000000000';

export type EnsureTargetConfig = Pick<TargetConfig, 'type' | 'source' | 'objectType' | 'newFields'>;

export async function ensureTarget(
  service: SinkService,
  target: EnsureTargetConfig,
  opts: EnsureTargetOptions = {},
): Promise<EnsuredTarget> {
  const changes: SchemaChange[] = [];
  const dryRun = opts.dryRun === true;

  const typeConfig = target.type === 'row' ? target.objectType : undefined;
  if (target.type === 'row' && !typeConfig) {
    throw new FerryError('FERRY_CONFIG_INVALID', 'a row target needs objectType: { name }', { where: 'target.objectType' });
  }
  const wanted = typeConfig ? wantedFields(typeConfig.fields ?? {}, opts.inferredFields) : [];

  let source = await findSource(service, target.source.name);
  // A new source has no object types: check the one to create before writing anything.
  if (!source && typeConfig) checkCreatable(typeConfig.name, wanted, opts.sampledRecords);
  if (!source) {
    changes.push({ kind: 'create-source', name: target.source.name });
    if (!dryRun) {
      const body = { name: target.source.name, displayName: target.source.displayName ?? target.source.name };
      source = await createOrFind(
        () => service.createSource(body),
        () => findSource(service, target.source.name),
      );
    }
  }
  const sourceId = source?.id ?? PLANNED_ID;
  if (!typeConfig) return { sourceId, changes };

  const existing = source ? await findObjectType(service, source.id, typeConfig.name) : undefined;

  if (!existing) {
    checkCreatable(typeConfig.name, wanted, opts.sampledRecords);
    const fields = wanted.map(({ declared: _declared, ...f }) => f);
    changes.push({ kind: 'create-object-type', name: typeConfig.name, fields });
    if (dryRun || !source) {
      return { sourceId, objectType: targetObjectType({ id: PLANNED_ID, sourceId, name: typeConfig.name }, fields.map(changeToRequest)), changes };
    }
    const sid = source.id;
    const body = {
      sourceId: sid,
      name: typeConfig.name,
      displayName: typeConfig.displayName ?? typeConfig.name,
      fieldDefinitions: fields.map(changeToRequest),
    };
    let created: ObjectTypeResponse | undefined;
    try {
      created = await service.createObjectType(body);
    } catch (error) {
      // Another run created it between our list and create: evolve that one instead.
      if (statusOf(error) !== 409) throw error;
      const raced = await findObjectType(service, sid, typeConfig.name);
      if (!raced) throw error;
      changes.pop();
      return { sourceId, ...(await evolve(service, raced, wanted, changes, dryRun, target.newFields)) };
    }
    return { sourceId, objectType: targetObjectType(created, created.fieldDefinitions), changes };
  }
  return { sourceId, ...(await evolve(service, existing, wanted, changes, dryRun, target.newFields)) };
}

async function evolve(
  service: SinkService,
  existing: ObjectTypeResponse,
  wanted: readonly WantedField[],
  changes: SchemaChange[],
  dryRun: boolean,
  policy: TargetConfig['newFields'],
): Promise<{ objectType: TargetObjectType; changes: SchemaChange[] }> {
  // Declared fields are an explicit request; inferred ones only grow the schema under `evolve`.
  const relevant = policy === 'evolve' ? wanted : wanted.filter((f) => f.declared);
  const { definitions, added } = mergeFields(existing.name, existing.fieldDefinitions, relevant);
  if (added.length === 0) {
    return { objectType: targetObjectType(existing, existing.fieldDefinitions), changes };
  }
  changes.push({ kind: 'add-fields', name: existing.name, fields: added });
  if (dryRun) return { objectType: targetObjectType(existing, definitions), changes };
  const updated = await service.updateObjectType(existing.id, { fieldDefinitions: definitions });
  return { objectType: targetObjectType(updated, updated.fieldDefinitions), changes };
}

function checkCreatable(name: string, wanted: readonly WantedField[], sampledRecords: number | undefined): void {
  if (wanted.length === 0 && sampledRecords === 0) {
    throw new FerryError('FERRY_CONFIG_INVALID', `the source yielded no records (empty input), so object type "${name}" cannot be created: there is nothing to infer its fields from`, {
      where: 'source',
      hint: 'check that the source has data (an empty or header-only CSV file has none); to create the object type from empty input, declare objectType.fields',
    });
  }
  if (wanted.length === 0) {
    throw new FerryError('FERRY_CONFIG_INVALID', `object type "${name}" does not exist and no fields are known to create it with`, {
      where: 'target.objectType.fields',
      hint: 'declare fields under objectType.fields, e.g. fields: { amount: double }, or map some row fields so they can be inferred',
    });
  }
  checkFieldLimit(name, wanted.length, 0);
}

function wantedFields(
  declared: NonNullable<NonNullable<TargetConfig['objectType']>['fields']>,
  inferred: ReadonlyMap<string, FieldType> | undefined,
): WantedField[] {
  const out: WantedField[] = [];
  for (const [name, decl] of Object.entries(declared)) {
    const field: WantedField = { name, type: decl.type, declared: true };
    if (decl.label !== undefined) field.label = decl.label;
    if (decl.required) field.required = true;
    out.push(field);
  }
  for (const [name, type] of inferred ?? []) {
    if (!(name in declared)) out.push({ name, type, declared: false });
  }
  return out;
}

/** The source with exactly this name; the service's `name` filter is a case-insensitive partial match. */
export async function findSource(service: SinkService, name: string): Promise<SourceResponse | undefined> {
  const { sources } = await service.listSources({ name });
  return sources.find((s) => s.name === name);
}

export async function findObjectType(service: SinkService, sourceId: string, name: string): Promise<ObjectTypeResponse | undefined> {
  const { objectTypes } = await service.listObjectTypes({ sourceId });
  return objectTypes.find((t) => t.name === name && t.sourceId === sourceId);
}

/** Create; on 409 (another run got there first) use what it created. */
async function createOrFind<T>(create: () => Promise<T>, find: () => Promise<T | undefined>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
    const found = await find();
    if (found === undefined) throw error;
    return found;
  }
}
