/**
 * Object-type field definitions as the sink keeps them, and the merge rule
 * shared by target setup and schema evolution: existing fields are never
 * dropped or retyped (PATCH replaces the whole schema, and the service cannot
 * change a field's type in place), new ones are appended.
 */
import { FerryError } from '../sdk/errors.js';
import type { FieldType } from '../sdk/types.js';
import { LIMITS } from '../api/schemas/common.js';
import type { FieldDefinitionResponse } from '../api/schemas/read.js';
import type { FieldDefinitionRequest } from '../api/schemas/write.js';

/** The object type a row target writes to, as the mapper needs it. Evolution updates it in place. */
export interface TargetObjectType {
  id: string;
  /** The source the object type belongs to. */
  sourceId: string;
  name: string;
  fieldTypes: Map<string, FieldType>;
  labels: Map<string, string | undefined>;
  required: Set<string>;
}

/** A field ferry adds to an object type. */
export interface FieldChange {
  name: string;
  type: FieldType;
  label?: string;
  required?: boolean;
}

/** A field ferry wants on the object type, and whether the user declared it (declared types are binding). */
export interface WantedField extends FieldChange {
  declared: boolean;
}

export const MAX_FIELDS = LIMITS.fieldDefinitions.max;

export function toRequest(def: FieldDefinitionResponse): FieldDefinitionRequest {
  return { name: def.name, fieldType: def.fieldType, label: def.label ?? null, required: def.required };
}

export function changeToRequest(field: FieldChange): FieldDefinitionRequest {
  return { name: field.name, fieldType: field.type, label: field.label ?? null, required: field.required ?? false };
}

/**
 * Existing definitions plus the wanted fields they lack. A declared field whose
 * type differs from the existing one is a configuration error; an inferred one
 * simply takes the existing type (the mapper converts values to it).
 */
export function mergeFields(
  objectTypeName: string,
  existing: readonly FieldDefinitionResponse[],
  wanted: readonly WantedField[],
): { definitions: FieldDefinitionRequest[]; added: FieldChange[] } {
  const byName = new Map(existing.map((d) => [d.name, d]));
  const conflicts: string[] = [];
  const added: FieldChange[] = [];
  for (const field of wanted) {
    const current = byName.get(field.name);
    if (current) {
      if (field.declared && current.fieldType !== field.type) {
        conflicts.push(`"${field.name}" is ${current.fieldType} in the service but declared as ${field.type}`);
      }
      continue;
    }
    if (added.some((a) => a.name === field.name)) continue;
    added.push(stripDeclared(field));
  }
  if (conflicts.length > 0) {
    throw new FerryError(
      'FERRY_CONFIG_INVALID',
      `object type "${objectTypeName}": ${conflicts.join('; ')}. The service cannot change a field's type in place`,
      {
        details: { objectType: objectTypeName, conflicts },
        hint: 'declare the type the service already has, or map the value to a new field name (e.g. amount_v2); deleting and recreating the object type drops its schema for new rows',
      },
    );
  }
  const definitions = [...existing.map(toRequest), ...added.map(changeToRequest)];
  checkFieldLimit(objectTypeName, definitions.length, existing.length);
  return { definitions, added };
}

export function checkFieldLimit(objectTypeName: string, total: number, existing: number): void {
  if (total <= MAX_FIELDS) return;
  throw new FerryError(
    'FERRY_CONFIG_INVALID',
    `object type "${objectTypeName}" would have ${total} fields (${existing} existing, ${total - existing} new); the service allows at most ${MAX_FIELDS}`,
    {
      details: { objectType: objectTypeName, total, existing, limit: MAX_FIELDS },
      hint: 'declare only the fields you need under objectType.fields and set newFields: discard (or freeze), or split the data across two object types',
    },
  );
}

function stripDeclared(field: WantedField): FieldChange {
  const out: FieldChange = { name: field.name, type: field.type };
  if (field.label !== undefined) out.label = field.label;
  if (field.required) out.required = true;
  return out;
}

/** The sink's view of an object type from the service's definitions. */
export function targetObjectType(
  ids: { id: string; sourceId: string; name: string },
  defs: readonly (FieldDefinitionRequest | FieldDefinitionResponse)[],
): TargetObjectType {
  const target: TargetObjectType = { id: ids.id, sourceId: ids.sourceId, name: ids.name, fieldTypes: new Map(), labels: new Map(), required: new Set() };
  applyDefinitions(target, defs);
  return target;
}

/** Replace the target's field maps with the service's current definitions (in place: the mapper holds the object). */
export function applyDefinitions(target: TargetObjectType, defs: readonly (FieldDefinitionRequest | FieldDefinitionResponse)[]): void {
  target.fieldTypes.clear();
  target.labels.clear();
  target.required.clear();
  for (const d of defs) {
    target.fieldTypes.set(d.name, d.fieldType);
    target.labels.set(d.name, d.label ?? undefined);
    if (d.required) target.required.add(d.name);
  }
}
