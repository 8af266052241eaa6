/**
 * Turn a mapped record into the request body of its target type: inject the
 * ids ferry owns, normalise what has one lossless reading (timestamps, ids
 * given as numbers, a single participant given as an object), wrap row
 * fields, then validate with the API's own schemas and return their parsed
 * (normalised) output, which is exactly what is sent and fingerprinted.
 */
import type { z } from 'zod';
import { EMAIL_PATTERN } from '../api/schemas/common.js';
import { isPlainValidRow } from '../api/schemas/fast/row-fast-check.js';
import { conversationRequest, documentRequest, messageRequest, rowRequest } from '../api/schemas/write.js';
import { isRecord } from '../sdk/guards.js';
import type { FieldType } from '../sdk/types.js';
import { coerceFieldValue } from './coerce.js';
import { toJsonSafe } from './json-safe.js';
import { normaliseTimestamp } from './timestamps.js';

export type TargetKind = 'conversation' | 'message' | 'row' | 'document';

export interface BuildContext {
  /** Service-side id of the source records are pushed under. */
  sourceId: string;
  /** Rows only: the object type's id. */
  objectTypeId?: string;
  /** Rows only: the object type's field types; fields not listed here are left out. */
  fieldTypes?: ReadonlyMap<string, FieldType>;
  /** Rows only: declared field labels, sent with each value. */
  fieldLabels?: ReadonlyMap<string, string | undefined>;
}

export type BuildResult =
  | { ok: true; body: Record<string, unknown>; remoteId: string }
  | {
      ok: false;
      /** Every problem, `path: message`, joined with '; '. */
      reason: string;
      /** Dotted path of the first problem (`transcript.3.timestamp`), null for the body as a whole. */
      field: string | null;
      /** The body as far as it was built, for the dead-letter and previews. */
      partialBody?: Record<string, unknown>;
    };

interface Shape {
  schema: z.ZodType<Record<string, unknown>>;
  /** True only for a body the schema accepts and returns unchanged: the parse is skipped (src/api/schemas/fast/row-fast-check.ts). */
  plainValid?: (body: Record<string, unknown>) => boolean;
  timestamps: readonly string[];
  /** Array fields: one value given on its own is wrapped (JSONata returns a single match unwrapped). */
  arrays: readonly string[];
  /** Text fields: numbers become their decimal text. */
  strings: readonly string[];
  person: readonly string[];
  people: readonly string[];
}

const SHAPES: Record<TargetKind, Shape> = {
  conversation: {
    schema: conversationRequest,
    timestamps: ['createdAt', 'updatedAt', 'startedAt', 'endedAt'],
    arrays: ['transcript', 'participants', 'ownerEmails'],
    strings: ['displayName', 'recordingUrl', 'recordingMimeType'],
    person: [],
    people: ['participants'],
  },
  message: {
    schema: messageRequest,
    timestamps: ['createdAt', 'updatedAt'],
    arrays: ['recipients', 'attachments', 'ownerEmails'],
    strings: ['displayName', 'body', 'threadId'],
    person: ['sender'],
    people: ['recipients'],
  },
  row: {
    schema: rowRequest,
    plainValid: isPlainValidRow,
    timestamps: ['createdAt', 'updatedAt'],
    arrays: ['ownerEmails'],
    strings: ['name'],
    person: [],
    people: [],
  },
  document: {
    schema: documentRequest,
    timestamps: ['createdAt', 'updatedAt'],
    arrays: ['ownerEmails'],
    strings: ['displayName', 'filename', 'url', 'contentType'],
    person: ['author'],
    people: [],
  },
};

// createdAt is optional but not nullable on rows and documents; displayName and transcript on conversations.
const OPTIONAL_NOT_NULLABLE: ReadonlySet<string> = new Set(['public', 'ownerEmails', 'attachments', 'displayName', 'transcript', 'createdAt', 'contentType']);

type IssuePath = (string | number)[];
interface Issue {
  path: IssuePath;
  message: string;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * A person given as a bare e-mail address becomes `{ email }`, and numeric
 * ids (speaker ids, user ids) become text.
 */
function person(value: unknown): unknown {
  if (typeof value === 'string' && EMAIL_PATTERN.test(value.trim())) return { email: value.trim() };
  if (!isRecord(value)) return value;
  const out = { ...value };
  if (typeof out.id === 'number') out.id = String(out.id);
  if (typeof out.email === 'string') out.email = out.email.trim();
  if (typeof out.name === 'number') out.name = String(out.name);
  return out;
}

function timestamp(body: Record<string, unknown>, key: string | number, path: IssuePath, issues: Issue[]): void {
  const value = body[key];
  if (value === undefined || value === null) return;
  const iso = normaliseTimestamp(value);
  if (iso === undefined) {
    issues.push({
      path,
      message: `${show(value)} is not a timestamp (expected ISO 8601, Unix seconds or Unix milliseconds)`,
    });
  } else {
    body[key] = iso;
  }
}

function buildRowFields(mapped: unknown, ctx: BuildContext, issues: Issue[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (mapped === undefined || mapped === null) return fields;
  if (!isRecord(mapped)) {
    issues.push({ path: ['fields'], message: `map.fields must produce an object of field values, found ${show(mapped)}` });
    return fields;
  }
  if (ctx.fieldTypes === undefined) {
    issues.push({ path: ['fields'], message: 'the object type\'s field types are not known' });
    return fields;
  }
  // for…in, not Object.entries: no [name, value] pair allocated per field per record.
  for (const name in mapped) {
    if (!Object.hasOwn(mapped, name)) continue;
    const value = (mapped)[name];
    // Blank cells and absent values are "no value", not an empty string to store.
    if (value === undefined || value === '') continue;
    const fieldType = ctx.fieldTypes.get(name);
    if (fieldType === undefined) continue;
    const coerced = coerceFieldValue(value, fieldType);
    if (!coerced.ok) {
      issues.push({ path: ['fields', name], message: `expected ${fieldType}, found ${show(value)}` });
      continue;
    }
    const label = ctx.fieldLabels?.get(name);
    fields[name] = label === undefined ? { value: coerced.value, fieldType } : { value: coerced.value, fieldType, label };
  }
  return fields;
}

function prepare(kind: TargetKind, mapped: Record<string, unknown>, ctx: BuildContext, issues: Issue[]): Record<string, unknown> {
  const shape = SHAPES[kind];
  const safe = toJsonSafe(mapped) as Record<string, unknown>;
  // Object.assign, not `{ ...safe, sourceId }`: on Node 20 a spread with a property beside it (or one added to
  // its copy afterwards) is not optimised, and this runs once per record (docs/performance.md). Assigning
  // is safe here where it would not be for a record's own keys: these are the map spec's, which
  // checkTargetFields limits to the request's fields, so no `__proto__` reaches the setter.
  const body: Record<string, unknown> = Object.assign({}, safe);
  body.sourceId = ctx.sourceId;
  if (kind === 'row' && ctx.objectTypeId !== undefined) body.objectTypeId = ctx.objectTypeId;

  const id = body.id;
  if (id === undefined || id === null || id === '') {
    issues.push({ path: ['id'], message: 'map.id produced nothing' });
  } else if (typeof id === 'number') {
    body.id = String(id);
  } else if (typeof id !== 'string') {
    issues.push({ path: ['id'], message: `map.id must produce text or a number, found ${show(id)}` });
  }

  // These are optional but not nullable: a NULL column means "not given", not a value to refuse.
  // One pass over the body's own keys (a handful) rather than a look-up of each listed key, most of them absent.
  for (const key in body) if (body[key] === null && OPTIONAL_NOT_NULLABLE.has(key)) delete body[key];
  if (body.public === 'true' || body.public === 'false') body.public = body.public === 'true';
  // Indexed loops over the shape's lists, and no path array for a timestamp the body lacks: per record, these add up.
  const { strings, arrays, person: persons, people, timestamps } = shape;
  for (let i = 0; i < strings.length; i++) {
    // `42` → `'42'`; booleans and objects are left for the schema to refuse.
    const key = strings[i]!;
    const value = body[key];
    if (typeof value === 'number') body[key] = String(value);
  }
  for (let i = 0; i < arrays.length; i++) {
    const key = arrays[i]!;
    const value = body[key];
    if (value !== undefined && value !== null && !Array.isArray(value)) body[key] = [value];
  }
  for (let i = 0; i < persons.length; i++) {
    const key = persons[i]!;
    if (body[key] !== undefined) body[key] = person(body[key]);
  }
  for (let i = 0; i < people.length; i++) {
    const key = people[i]!;
    const value = body[key];
    if (Array.isArray(value)) body[key] = value.map(person);
  }
  for (let i = 0; i < timestamps.length; i++) {
    const key = timestamps[i]!;
    if (body[key] !== undefined && body[key] !== null) timestamp(body, key, [key], issues);
  }

  if (kind === 'conversation' && Array.isArray(body.transcript)) {
    body.transcript = body.transcript.map((entry: unknown, i) => {
      if (!isRecord(entry)) return entry;
      const sentence = { ...entry };
      if (typeof sentence.speakerId === 'number') sentence.speakerId = String(sentence.speakerId);
      if (typeof sentence.speakerName === 'number') sentence.speakerName = String(sentence.speakerName);
      if (typeof sentence.text === 'number') sentence.text = String(sentence.text);
      timestamp(sentence, 'timestamp', ['transcript', i, 'timestamp'], issues);
      return sentence;
    });
  }

  if (kind === 'row') {
    if (ctx.objectTypeId === undefined) issues.push({ path: ['objectTypeId'], message: 'the object type has no id yet' });
    body.fields = buildRowFields(body.fields, ctx, issues);
  }
  return body;
}

/** Whether `outer` is `inner` or one of its parents (`fields` of `fields.amount`). */
function covers(outer: readonly PropertyKey[], inner: readonly PropertyKey[]): boolean {
  return outer.length > 0 && outer.length <= inner.length && outer.every((step, i) => String(step) === String(inner[i]));
}

function summarise(issues: readonly Issue[]): string {
  return issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/**
 * Build and validate the request body for one mapped record. Never throws for
 * bad data: an invalid record comes back as `{ ok: false }` with every
 * problem in `reason`, for the dead-letter.
 */
export function buildRequest(kind: TargetKind, mapped: Record<string, unknown>, ctx: BuildContext): BuildResult {
  const issues: Issue[] = [];
  const body = prepare(kind, mapped, ctx, issues);
  const { schema, plainValid } = SHAPES[kind];
  // The common case without zod's parse (src/api/schemas/fast/); everything else, and every message, from zod.
  if (issues.length === 0 && plainValid?.(body) === true) return { ok: true, body, remoteId: body.id as string };
  const parsed = schema.safeParse(body);
  if (parsed.success && issues.length === 0) {
    return { ok: true, body: parsed.data, remoteId: parsed.data.id as string };
  }
  if (!parsed.success) {
    const own = issues.slice();
    for (const issue of parsed.error.issues) {
      // A problem already reported in ferry's own words is not repeated in
      // zod's, nor its echo on the parent ("fields needs at least 1 entry"
      // when the only field failed coercion).
      const path = issue.path.map((step) => (typeof step === 'symbol' ? String(step) : step));
      if (own.some((known) => covers(path, known.path))) continue;
      issues.push({ path, message: issue.message });
    }
  }
  const first = issues[0];
  return {
    ok: false,
    reason: summarise(issues),
    field: first && first.path.length > 0 ? first.path.join('.') : null,
    partialBody: body,
  };
}
