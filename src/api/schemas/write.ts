/**
 * Request shapes of the write side, with every rule the spec states. Parsing
 * normalises timestamps to ISO 8601 UTC strings and applies defaults, so the
 * parsed value is what ferry sends and what the emulator stores.
 */
import { z } from 'zod';
import { EMAIL_PATTERN, LIMITS, fieldType, httpUrl, mimeType, timestampInput, uuid } from './common.js';
import { isIsoDate, isIsoDateTime, parseTimestamp } from '../timestamp.js';
import type { FieldTypeValue } from './common.js';

const optionalTimestamp = timestampInput.nullable().optional();

export const person = z
  .object({
    id: z.string().nullable().optional(),
    name: z.string().nullable().optional(),
    email: z.string().nullable().optional(),
  })
  .refine((p) => Boolean(p.id) || Boolean(p.email), {
    message: 'a person needs at least one of id or email',
  });
export type Person = z.infer<typeof person>;

const baseFields = {
  id: z.string().min(1, 'must not be empty'),
  sourceId: uuid,
  updatedAt: optionalTimestamp,
  public: z.boolean().optional(),
  ownerEmails: z.array(z.string()).optional(),
};

/** A private record (public false or absent) needs at least one valid owner e-mail. */
function checkVisibility(body: { public?: boolean | undefined; ownerEmails?: string[] | undefined }, ctx: z.RefinementCtx) {
  const owners = body.ownerEmails ?? [];
  owners.forEach((owner, i) => {
    if (!EMAIL_PATTERN.test(owner)) {
      ctx.addIssue({ code: 'custom', path: ['ownerEmails', i], message: `"${owner}" is not a valid e-mail address` });
    }
  });
  if (body.public !== true && !owners.some((o) => EMAIL_PATTERN.test(o))) {
    ctx.addIssue({
      code: 'custom',
      path: ['ownerEmails'],
      message: 'a private record (public is not true) must include at least one valid ownerEmails entry',
    });
  }
}

export const transcriptSentence = z
  .object({
    speakerId: z.string().nullable().optional(),
    speakerName: z.string().nullable().optional(),
    text: z.string(),
    timestamp: timestampInput,
  })
  .refine((s) => Boolean(s.speakerId) || Boolean(s.speakerName), {
    message: 'a transcript sentence needs speakerId or speakerName',
    path: ['speakerName'],
  });

export const conversationRequest = z
  .object({
    ...baseFields,
    createdAt: timestampInput,
    displayName: z.string().optional().transform((v) => v ?? ''),
    transcript: z.array(transcriptSentence).max(LIMITS.transcriptSentences).optional(),
    recordingUrl: httpUrl.nullable().optional(),
    recordingMimeType: mimeType.nullable().optional(),
    startedAt: timestampInput,
    endedAt: optionalTimestamp,
    participants: z.array(person).min(LIMITS.participants.min).max(LIMITS.participants.max),
  })
  .superRefine((body, ctx) => {
    checkVisibility(body, ctx);
    const transcript = body.transcript ?? [];
    if (transcript.length === 0 && !body.recordingUrl) {
      ctx.addIssue({ code: 'custom', path: ['transcript'], message: 'a non-empty transcript or a recordingUrl is required' });
    }
    const start = Date.parse(body.startedAt);
    let end = start + LIMITS.conversationMaxMillis;
    if (body.endedAt != null) {
      const ended = Date.parse(body.endedAt);
      if (ended <= start) {
        ctx.addIssue({ code: 'custom', path: ['endedAt'], message: 'endedAt must be after startedAt' });
      } else if (ended - start > LIMITS.conversationMaxMillis) {
        ctx.addIssue({ code: 'custom', path: ['endedAt'], message: 'endedAt must be within 10 hours of startedAt' });
      } else {
        end = ended;
      }
    }
    transcript.forEach((sentence, i) => {
      const at = Date.parse(sentence.timestamp);
      if (at < start || at > end) {
        ctx.addIssue({
          code: 'custom',
          path: ['transcript', i, 'timestamp'],
          message: `sentence timestamp ${sentence.timestamp} lies outside the conversation window [${body.startedAt}, ${new Date(end).toISOString()}]`,
        });
      }
    });
  });
export type ConversationRequest = z.input<typeof conversationRequest>;

export const attachment = z.object({
  name: z.string().min(1),
  url: httpUrl,
  mimeType: mimeType.nullable().optional(),
  sizeBytes: z.number().int().nonnegative().nullable().optional(),
});

export const messageRequest = z
  .object({
    ...baseFields,
    createdAt: timestampInput,
    displayName: z.string().optional().transform((v) => v ?? ''),
    body: z.string().max(LIMITS.messageBodyChars, `must be at most ${LIMITS.messageBodyChars} characters`),
    sender: person,
    recipients: z.array(person).min(LIMITS.recipients.min).max(LIMITS.recipients.max),
    attachments: z.array(attachment).optional(),
    threadId: z.string().nullable().optional(),
  })
  .superRefine(checkVisibility);
export type MessageRequest = z.input<typeof messageRequest>;

/** Whether a row field value has the shape its field type calls for. Null is allowed (an empty value). */
export function valueMatchesFieldType(value: unknown, type: FieldTypeValue): boolean {
  if (value === null) return true;
  switch (type) {
    case 'string':
    case 'textarea':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'double':
      return typeof value === 'number' && Number.isFinite(value);
    case 'datetime':
      return isIsoDateTime(value);
    case 'date':
      return isIsoDate(value);
    case 'list':
      return Array.isArray(value);
  }
}

export const rowFieldValue = z
  .object({
    value: z.unknown(),
    fieldType,
    label: z.string().nullable().optional(),
  })
  .superRefine((field, ctx) => {
    if (!('value' in field) || field.value === undefined) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'value is required' });
    } else if (!valueMatchesFieldType(field.value, field.fieldType)) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: `value ${JSON.stringify(field.value)?.slice(0, 80)} does not match fieldType ${field.fieldType}`,
      });
    }
  });
export type RowFieldValue = z.infer<typeof rowFieldValue>;

const rowFields = z
  .record(z.string().min(1), rowFieldValue)
  .refine((f) => Object.keys(f).length >= LIMITS.rowFields.min, { message: 'fields needs at least 1 entry' })
  .refine((f) => Object.keys(f).length <= LIMITS.rowFields.max, { message: `fields takes at most ${LIMITS.rowFields.max} entries` });

export const rowRequest = z
  .object({
    ...baseFields,
    createdAt: timestampInput.optional(),
    objectTypeId: uuid,
    name: z.string().min(LIMITS.rowName.min).max(LIMITS.rowName.max),
    fields: rowFields,
  })
  .superRefine(checkVisibility);
export type RowRequest = z.input<typeof rowRequest>;

export const updateRowRequest = z
  .object({
    name: z.string().min(LIMITS.rowName.min).max(LIMITS.rowName.max).nullable().optional(),
    public: z.boolean().nullable().optional(),
    ownerEmails: z.array(z.string().regex(EMAIL_PATTERN, 'must be an e-mail address')).nullable().optional(),
    updatedAt: optionalTimestamp,
    fields: z.record(z.string().min(1), rowFieldValue.nullable()).nullable().optional(),
  });
export type UpdateRowRequest = z.input<typeof updateRowRequest>;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export function isBase64(text: string): boolean {
  return BASE64.test(text.replace(/\s+/g, ''));
}
const base64 = z.string().min(1, 'must not be empty: a document needs content').refine(isBase64, 'must be base64-encoded bytes');

/** A PATCH key naming something the spec says cannot change: refused rather than silently ignored. */
const cannotChange = (what: string) =>
  z.unknown().refine((value) => value === undefined, `${what} cannot be changed by PATCH`).optional();

export const documentRequest = z
  .object({
    ...baseFields,
    createdAt: timestampInput.optional(),
    displayName: z.string().nullable().optional(),
    url: httpUrl.nullable().optional(),
    content: base64.nullable().optional(),
    filename: z.string().nullable().optional(),
    contentType: mimeType.optional().transform((v) => v ?? 'text/plain'),
    author: person.nullable().optional(),
  })
  .superRefine((body, ctx) => {
    checkVisibility(body, ctx);
    const hasUrl = body.url != null;
    const hasContent = body.content != null;
    if (hasUrl === hasContent) {
      ctx.addIssue({
        code: 'custom',
        path: [hasUrl ? 'content' : 'url'],
        message: 'exactly one of url or content is required',
      });
    }
    if (hasContent && !body.displayName && !body.filename) {
      ctx.addIssue({
        code: 'custom',
        path: ['displayName'],
        message: 'displayName is required for content uploads when filename is omitted',
      });
    }
  });
export type DocumentRequest = z.input<typeof documentRequest>;

export const updateDocumentRequest = z
  .object({
    displayName: z.string().nullable().optional(),
    public: z.boolean().nullable().optional(),
    ownerEmails: z.array(z.string().regex(EMAIL_PATTERN, 'must be an e-mail address')).nullable().optional(),
    updatedAt: optionalTimestamp,
    url: httpUrl.nullable().optional(),
    content: base64.nullable().optional(),
    filename: z.string().nullable().optional(),
    contentType: mimeType.nullable().optional(),
    author: cannotChange("a document's author"),
  })
  .superRefine((body, ctx) => {
    if (body.url != null && body.content != null) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'at most one of url or content may be passed' });
    }
  });
export type UpdateDocumentRequest = z.input<typeof updateDocumentRequest>;

const resourceName = z.string().min(LIMITS.name.min).max(LIMITS.name.max);

export const createSourceRequest = z.object({ name: resourceName, displayName: resourceName });
export type CreateSourceRequest = z.input<typeof createSourceRequest>;

export const updateSourceRequest = z.object({ displayName: resourceName, name: cannotChange("a source's name") });
export type UpdateSourceRequest = z.input<typeof updateSourceRequest>;

export const fieldDefinitionRequest = z.object({
  name: resourceName,
  fieldType,
  label: z.string().nullable().optional(),
  required: z.boolean().default(false),
});
export type FieldDefinitionRequest = z.input<typeof fieldDefinitionRequest>;

const fieldDefinitions = z
  .array(fieldDefinitionRequest)
  .min(LIMITS.fieldDefinitions.min)
  .max(LIMITS.fieldDefinitions.max)
  .superRefine((defs, ctx) => {
    const seen = new Set<string>();
    defs.forEach((def, i) => {
      if (seen.has(def.name)) {
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate field name "${def.name}"` });
      }
      seen.add(def.name);
    });
  });

export const createObjectTypeRequest = z.object({
  sourceId: uuid,
  name: resourceName,
  displayName: resourceName,
  fieldDefinitions,
});
export type CreateObjectTypeRequest = z.input<typeof createObjectTypeRequest>;

export const updateObjectTypeRequest = z.object({
  displayName: resourceName.nullable().optional(),
  fieldDefinitions: fieldDefinitions.nullable().optional(),
});
export type UpdateObjectTypeRequest = z.input<typeof updateObjectTypeRequest>;

export const askRequest = z.object({ message: z.string().min(1) });
export type AskRequest = z.input<typeof askRequest>;

/** Epoch milliseconds of a normalised timestamp (a parsed body's field), for comparisons. */
export function timestampMillis(value: string | null | undefined): number | undefined {
  return value == null ? undefined : parseTimestamp(value);
}
