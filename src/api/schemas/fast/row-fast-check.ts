/**
 * A cheap check of a row request body (`rowRequest`), for the bodies ferry
 * builds thousands of times a second: a body passing it is one the full zod
 * parse accepts and returns unchanged (no key to strip, timestamps already
 * in the parse's ISO form, no default to apply), so the parse can be
 * skipped. It only ever says yes to what zod accepts; anything else (a
 * number for a timestamp, an unknown key, any failure) goes through zod,
 * which stays the one definition and the one source of error messages (the
 * plain path: src/mapping/build.ts parses every body the check does not
 * pass). The keys it allows are read from the schema itself; a differential
 * test (test/unit/api/schemas/fast/row-fast-check.test.ts) keeps the rest
 * equal.
 */
import { isRecord } from '../../../sdk/guards.js';
import { FIELD_TYPES } from '../../../sdk/types.js';
import { parseRequestTimestamp } from '../../timestamp.js';
import { EMAIL_PATTERN, LIMITS, UUID_PATTERN } from '../common.js';
import { rowFieldValue, rowRequest, valueMatchesFieldType } from '../write.js';
import type { FieldTypeValue } from '../common.js';

const ROW_KEYS: ReadonlySet<string> = new Set(Object.keys(rowRequest.shape));
const FIELD_KEYS: ReadonlySet<string> = new Set(Object.keys(rowFieldValue.shape));
const FIELD_TYPE_SET: ReadonlySet<string> = new Set(FIELD_TYPES);

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/** A timestamp exactly as the parse would output it (`2024-06-10T09:30:00.000Z`). */
function isNormalTimestamp(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const ms = parseRequestTimestamp(value);
  return ms !== undefined && new Date(ms).toISOString() === value;
}

function isFieldValue(field: unknown): boolean {
  if (!isRecord(field) || !onlyKeys(field, FIELD_KEYS)) return false;
  const { value, fieldType, label } = field;
  if (typeof fieldType !== 'string' || !FIELD_TYPE_SET.has(fieldType)) return false;
  if (label !== undefined && label !== null && typeof label !== 'string') return false;
  return value !== undefined && valueMatchesFieldType(value, fieldType as FieldTypeValue);
}

function areFields(fields: unknown): boolean {
  if (!isRecord(fields)) return false;
  let count = 0;
  for (const name in fields) {
    if (name === '' || !isFieldValue(fields[name])) return false;
    count++;
  }
  return count >= LIMITS.rowFields.min && count <= LIMITS.rowFields.max;
}

function isVisible(isPublic: unknown, owners: unknown): boolean {
  if (isPublic !== undefined && typeof isPublic !== 'boolean') return false;
  if (owners === undefined) return isPublic === true;
  if (!Array.isArray(owners)) return false;
  for (const owner of owners) if (typeof owner !== 'string' || !EMAIL_PATTERN.test(owner)) return false;
  return isPublic === true || owners.length > 0;
}

/**
 * The source and object type ids last found to be UUIDs: a run's bodies all
 * carry the same two, so each is compared with the last one (the same string,
 * most often) rather than matched against the pattern again, once per record.
 */
const knownUuids: [string, string] = ['', ''];

function isUuid(value: unknown, slot: 0 | 1): boolean {
  if (typeof value !== 'string') return false;
  if (value === knownUuids[slot]) return true;
  if (!UUID_PATTERN.test(value)) return false;
  knownUuids[slot] = value;
  return true;
}

/** True only when `rowRequest.safeParse(body)` succeeds and returns a value equal (as JSON) to `body`. */
export function isPlainValidRow(body: Record<string, unknown>): boolean {
  if (!onlyKeys(body, ROW_KEYS)) return false;
  const { id, sourceId, objectTypeId, name, createdAt, updatedAt } = body;
  if (typeof id !== 'string' || id.length === 0) return false;
  if (!isUuid(sourceId, 0) || !isUuid(objectTypeId, 1)) return false;
  if (typeof name !== 'string' || name.length < LIMITS.rowName.min || name.length > LIMITS.rowName.max) return false;
  if (createdAt !== undefined && !isNormalTimestamp(createdAt)) return false;
  if (updatedAt !== undefined && updatedAt !== null && !isNormalTimestamp(updatedAt)) return false;
  return isVisible(body.public, body.ownerEmails) && areFields(body.fields);
}
