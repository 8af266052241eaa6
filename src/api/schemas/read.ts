/**
 * Response shapes of the read side. Objects are loose: a field the service
 * adds later is kept, not stripped, so exports carry it through.
 */
import { z } from 'zod';
import { fieldType, pagination, uuid } from './common.js';

const nullableString = z.string().nullable().optional();

export const participant = z.looseObject({
  name: nullableString,
  email: nullableString,
  attended: z.boolean().default(true),
});

export const CRM_TYPES = ['contact', 'account', 'opportunity', 'lead', 'owner', 'activity', 'task'] as const;
export const crmInfo = z.looseObject({
  id: nullableString,
  name: nullableString,
  type: z.enum(CRM_TYPES).nullable().optional(),
});

export const recordings = z.looseObject({
  videoUrl: nullableString,
  videoStreamUrl: nullableString,
  audioUrl: nullableString,
  audioStreamUrl: nullableString,
});

export const transcriptEntry = z.looseObject({
  speaker: z.string(),
  text: z.string(),
  startTime: z.number(),
  endTime: z.number(),
});

export const conversationListItem = z.looseObject({
  conversationId: uuid,
  sourceId: nullableString,
  title: nullableString,
  startTime: z.string(),
  endTime: z.string(),
  type: z.enum(['INTERNAL', 'EXTERNAL']),
  participants: z.array(participant),
  crm: crmInfo.nullable().optional(),
});

export const conversationDetail = conversationListItem.extend({
  category: nullableString,
  summary: z.record(z.string(), z.unknown()).nullable().optional(),
  transcript: z.array(transcriptEntry).nullable().optional(),
  recordings: recordings.nullable().optional(),
});

export const messageParty = z.looseObject({ name: nullableString, email: nullableString });

export const messageAttachmentInfo = z.looseObject({
  id: z.string(),
  filename: nullableString,
  contentType: nullableString,
  size: z.number().int().nullable().optional(),
});

export const messageListItem = z.looseObject({
  messageId: uuid,
  sourceId: z.string(),
  remoteId: nullableString,
  threadId: nullableString,
  subject: nullableString,
  sender: messageParty.nullable().optional(),
  recipients: z.array(messageParty),
  bodyPreview: z.string(),
  createdAt: z.string(),
});

export const messageDetail = messageListItem.extend({
  body: z.string(),
  attachments: z.array(messageAttachmentInfo),
});

export const fieldValueResponse = z.looseObject({
  value: z.unknown(),
  fieldType,
  label: nullableString,
});

export const row = z.looseObject({
  rowId: uuid,
  sourceId: z.string(),
  objectTypeId: uuid,
  objectTypeName: z.string(),
  remoteId: z.string(),
  name: z.string(),
  fields: z.record(z.string(), fieldValueResponse),
  createdAt: nullableString,
  updatedAt: nullableString,
});

export const documentItem = z.looseObject({
  id: z.string(),
  displayName: z.string(),
  sourceId: z.string(),
  remoteId: z.string(),
  url: nullableString,
  contentType: z.string(),
  createdAt: nullableString,
  updatedAt: nullableString,
});

export const owner = z.looseObject({ name: nullableString, email: nullableString });
export const contact = z.looseObject({ name: nullableString, email: nullableString, title: nullableString, phone: nullableString });

export const dealListItem = z.looseObject({
  dealId: z.string(),
  name: nullableString,
  accountName: nullableString,
  stage: nullableString,
  pipeline: nullableString,
  amount: z.number().nullable().optional(),
  closeDate: nullableString,
  closed: z.boolean().nullable().optional(),
  createdDate: nullableString,
  lastActivityDate: nullableString,
  owner: owner.nullable().optional(),
});

export const dealDetail = dealListItem.extend({
  summary: z.record(z.string(), z.unknown()).nullable().optional(),
  crmAutofill: z.record(z.string(), z.unknown()).nullable().optional(),
  contacts: z.array(contact),
});

export const latestDeal = z.looseObject({
  dealId: z.string(),
  name: nullableString,
  stage: nullableString,
  amount: z.number().nullable().optional(),
  closeDate: nullableString,
});

export const accountListItem = z.looseObject({
  accountId: z.string(),
  name: nullableString,
  website: nullableString,
  owner: owner.nullable().optional(),
  createdDate: nullableString,
  lastActivityDate: nullableString,
  latestDeal: latestDeal.nullable().optional(),
});

export const accountDetail = accountListItem.extend({
  contacts: z.array(contact),
  syncedCrmFields: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const sourceResponse = z.looseObject({
  id: uuid,
  name: z.string(),
  displayName: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const fieldDefinitionResponse = z.looseObject({
  name: z.string(),
  fieldType,
  label: nullableString,
  required: z.boolean(),
});

export const objectTypeResponse = z.looseObject({
  id: uuid,
  sourceId: uuid,
  name: z.string(),
  displayName: z.string(),
  fieldDefinitions: z.array(fieldDefinitionResponse),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const ASK_STATUSES = ['running', 'completed', 'failed', 'stopped'] as const;
export const askRun = z.looseObject({
  threadId: uuid,
  runId: uuid,
  status: z.enum(ASK_STATUSES),
  output: z.string().optional(),
  generatedAt: z.number().int().optional(),
  error: z.string().optional(),
});

export const healthResponse = z.looseObject({
  status: z.string(),
  org_id: uuid,
  scopes: z.array(z.string()),
});

export const recordResponse = z.looseObject({
  status: z.enum(['created', 'updated']),
  recordId: z.string(),
  id: z.string(),
  sourceId: z.string(),
});

export const deletedRecordResponse = z.looseObject({
  status: z.literal('deleted'),
  recordId: z.string(),
  id: z.string(),
  sourceId: z.string(),
  deletedAt: z.string(),
});

export const deletedResourceResponse = z.looseObject({ status: z.string(), id: z.string() });

const page = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.looseObject({ [key]: z.array(item), pagination } as { [P in K]: z.ZodArray<T> } & { pagination: typeof pagination });

export const conversationPage = page('conversations', conversationListItem);
export const dealPage = page('deals', dealListItem);
export const accountPage = page('accounts', accountListItem);
export const messagePage = page('messages', messageListItem);
export const rowPage = page('rows', row);
export const documentPage = page('documents', documentItem);
export const sourceList = z.looseObject({ sources: z.array(sourceResponse) });
export const objectTypeList = z.looseObject({ objectTypes: z.array(objectTypeResponse) });

export type Participant = z.infer<typeof participant>;
export type ConversationListItem = z.infer<typeof conversationListItem>;
export type ConversationDetail = z.infer<typeof conversationDetail>;
export type MessageListItem = z.infer<typeof messageListItem>;
export type MessageDetail = z.infer<typeof messageDetail>;
export type Row = z.infer<typeof row>;
export type DocumentItem = z.infer<typeof documentItem>;
export type DealListItem = z.infer<typeof dealListItem>;
export type DealDetail = z.infer<typeof dealDetail>;
export type AccountListItem = z.infer<typeof accountListItem>;
export type AccountDetail = z.infer<typeof accountDetail>;
export type SourceResponse = z.infer<typeof sourceResponse>;
export type ObjectTypeResponse = z.infer<typeof objectTypeResponse>;
export type FieldDefinitionResponse = z.infer<typeof fieldDefinitionResponse>;
export type AskRun = z.infer<typeof askRun>;
export type HealthResponse = z.infer<typeof healthResponse>;
export type RecordResponse = z.infer<typeof recordResponse>;
export type DeletedRecordResponse = z.infer<typeof deletedRecordResponse>;
