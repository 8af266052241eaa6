/** Row fields checked against their object type, and the RFC 7396 merge of PATCH. */
import type { RowFieldValue } from '../../api/schemas/write.js';
import { validation } from '../http/errors.js';
import type { FieldValueData, ObjectTypeEntity } from '../store/types.js';

function checkField(name: string, field: RowFieldValue, type: ObjectTypeEntity): FieldValueData {
  const def = type.fieldDefinitions.find((d) => d.name === name);
  if (!def) {
    throw validation(`unknown field "${name}": object type "${type.name}" does not declare it`, `fields.${name}`);
  }
  if (field.fieldType !== def.fieldType) {
    throw validation(
      `field "${name}" has fieldType ${field.fieldType} but object type "${type.name}" declares ${def.fieldType}`,
      `fields.${name}.fieldType`,
    );
  }
  if (def.required && field.value === null) {
    throw validation(`required field "${name}" must not be null`, `fields.${name}.value`);
  }
  return { value: field.value, fieldType: field.fieldType, label: field.label ?? def.label ?? null };
}

/** The fields of a RowRequest, every one declared, typed as declared, required ones present. */
export function rowFields(fields: Record<string, RowFieldValue>, type: ObjectTypeEntity): Record<string, FieldValueData> {
  const out: Record<string, FieldValueData> = {};
  for (const [name, field] of Object.entries(fields)) out[name] = checkField(name, field, type);
  for (const def of type.fieldDefinitions) {
    if (def.required && !(def.name in out)) {
      throw validation(`required field "${def.name}" is missing`, `fields.${def.name}`);
    }
  }
  return out;
}

/** RFC 7396 merge: present keys overwrite, absent keys stay, null deletes (never a required field). */
export function mergeRowFields(
  current: Record<string, FieldValueData>,
  patch: Record<string, RowFieldValue | null>,
  type: ObjectTypeEntity,
): Record<string, FieldValueData> {
  const merged = { ...current };
  for (const [name, field] of Object.entries(patch)) {
    if (field === null) {
      const def = type.fieldDefinitions.find((d) => d.name === name);
      if (def?.required) throw validation(`required field "${name}" cannot be deleted`, `fields.${name}`);
      if (!def && !(name in current)) {
        throw validation(`unknown field "${name}": object type "${type.name}" does not declare it`, `fields.${name}`);
      }
      delete merged[name];
    } else {
      merged[name] = checkField(name, field, type);
    }
  }
  return merged;
}
