/**
 * Query parameters of the list endpoints. The emulator parses raw query
 * strings with these; the client builds query strings from their input types.
 */
import { z } from 'zod';
import {
  LIMITS,
  NATIVE_CONVERSATION_SOURCES,
  NATIVE_DOCUMENT_SOURCES,
  NATIVE_MESSAGE_SOURCES,
  PAGE_SIZE_MAX,
  isoDateTime,
  sourceIdIn,
  uuid,
} from './common.js';

/** A number in a query string: decimal digits only, so `''`, `0x10` or `1e1` are refused, not read as 0, 16 or 10. */
const numberText = (pattern: RegExp, what: string) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    if (typeof value === 'number') return value;
    if (pattern.test(value)) return Number(value);
    ctx.addIssue({ code: 'custom', message: `must be ${what}; found ${JSON.stringify(value)}` });
    return z.NEVER;
  });
const limit = (fallback: number) =>
  numberText(/^\d+$/, 'an integer').pipe(z.number().int().min(1).max(PAGE_SIZE_MAX)).default(fallback);
const queryBoolean = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');
const queryNumber = numberText(/^-?\d+(\.\d+)?$/, 'a decimal number').pipe(z.number().refine(Number.isFinite, 'must be a number'));
const text = z.string();

export const conversationListQuery = z.object({
  limit: limit(20),
  startedAfter: isoDateTime.optional(),
  startedBefore: isoDateTime.optional(),
  type: z.enum(['INTERNAL', 'EXTERNAL']).optional(),
  title: text.optional(),
  attendees: text.optional(),
  crmName: text.optional(),
  sourceId: sourceIdIn(NATIVE_CONVERSATION_SOURCES).optional(),
  cursor: text.optional(),
});

export const dealListQuery = z.object({
  limit: limit(20),
  name: text.optional(),
  stage: text.optional(),
  closed: queryBoolean.optional(),
  owner: text.optional(),
  closeDateAfter: isoDateTime.optional(),
  closeDateBefore: isoDateTime.optional(),
  amountMin: queryNumber.optional(),
  amountMax: queryNumber.optional(),
  lastActivityAfter: isoDateTime.optional(),
  lastActivityBefore: isoDateTime.optional(),
  cursor: text.optional(),
});

export const accountListQuery = z.object({
  limit: limit(20),
  name: text.optional(),
  website: text.optional(),
  owner: text.optional(),
  createdAfter: isoDateTime.optional(),
  createdBefore: isoDateTime.optional(),
  lastActivityAfter: isoDateTime.optional(),
  lastActivityBefore: isoDateTime.optional(),
  cursor: text.optional(),
});

export const messageListQuery = z.object({
  limit: limit(50),
  sourceId: sourceIdIn(NATIVE_MESSAGE_SOURCES).optional(),
  remoteId: text.optional(),
  threadId: text.optional(),
  participantEmail: text.optional(),
  createdAfter: isoDateTime.optional(),
  createdBefore: isoDateTime.optional(),
  cursor: text.optional(),
});

export const rowListQuery = z.object({
  limit: limit(50),
  sourceId: sourceIdIn([]).optional(),
  objectTypeId: uuid.optional(),
  remoteId: text.optional(),
  name: text.max(LIMITS.rowNameFilter).optional(),
  createdAfter: isoDateTime.optional(),
  createdBefore: isoDateTime.optional(),
  cursor: text.optional(),
});

export const documentListQuery = z.object({
  limit: limit(50),
  sourceId: sourceIdIn(NATIVE_DOCUMENT_SOURCES).optional(),
  name: text.max(LIMITS.documentNameFilter).optional(),
  cursor: text.optional(),
});

export const sourceListQuery = z.object({ name: text.max(LIMITS.name.max).optional() });
export const objectTypeListQuery = z.object({ sourceId: uuid.optional() });

/** `remoteId` + `sourceId`, the key of a pushed record on PATCH and DELETE. */
export const recordKeyQuery = z.object({ remoteId: z.string().min(1), sourceId: uuid });

export type ConversationListQuery = z.input<typeof conversationListQuery>;
export type DealListQuery = z.input<typeof dealListQuery>;
export type AccountListQuery = z.input<typeof accountListQuery>;
export type MessageListQuery = z.input<typeof messageListQuery>;
export type RowListQuery = z.input<typeof rowListQuery>;
export type DocumentListQuery = z.input<typeof documentListQuery>;
export type SourceListQuery = z.input<typeof sourceListQuery>;
export type ObjectTypeListQuery = z.input<typeof objectTypeListQuery>;
export type RecordKeyQuery = z.input<typeof recordKeyQuery>;
