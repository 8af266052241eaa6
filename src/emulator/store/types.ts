/**
 * What the store keeps for each kind of record. Pushed requests are turned
 * into these read-ready shapes at write time (see `ingest/`), and native seed
 * data is loaded straight into them, so the read views treat both alike.
 */
import type { FieldTypeValue } from '../../api/schemas/common.js';
import type { CRM_TYPES } from '../../api/schemas/read.js';

export type RecordKind = 'conversation' | 'message' | 'row' | 'document';

export type PartyData = {
  name: string | null;
  email: string | null;
};

export type ParticipantData = PartyData & {
  attended: boolean;
};

export type CrmInfoData = {
  id: string | null;
  name: string | null;
  type: (typeof CRM_TYPES)[number] | null;
};

export type TranscriptEntryData = {
  speaker: string;
  text: string;
  startTime: number;
  endTime: number;
};

/** Media ids (rows of the `media` table) of a conversation's recordings. */
export interface RecordingMedia {
  audio?: string;
  video?: string;
}

export interface ConversationData {
  title: string | null;
  startTime: string;
  endTime: string;
  /** INTERNAL / EXTERNAL, computed from participants at write time unless the seed sets it. */
  type: 'INTERNAL' | 'EXTERNAL';
  participants: ParticipantData[];
  crm: CrmInfoData | null;
  category: string | null;
  summary: Record<string, unknown> | null;
  transcript: TranscriptEntryData[] | null;
  recordings: RecordingMedia | null;
  /** The caller's recordingUrl, kept for reference; the emulator never fetches it. */
  recordingUrl?: string | null;
}

export interface AttachmentData {
  id: string;
  filename: string | null;
  contentType: string | null;
  size: number | null;
  url?: string | null;
}

export interface MessageData {
  threadId: string | null;
  subject: string | null;
  sender: PartyData | null;
  recipients: PartyData[];
  body: string;
  createdAt: string;
  attachments: AttachmentData[];
}

export interface FieldValueData {
  value: unknown;
  fieldType: FieldTypeValue;
  label: string | null;
}

export interface RowData {
  name: string;
  fields: Record<string, FieldValueData>;
  createdAt: string | null;
  updatedAt: string | null;
}

export interface DocumentData {
  displayName: string;
  url: string | null;
  contentType: string;
  filename: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  author: { id: string | null; name: string | null; email: string | null } | null;
  /** Incremented by every PATCH carrying url or content (a new version). */
  version: number;
  /** Decoded text of a textual content upload, for search; null otherwise. */
  text: string | null;
  /** Size in bytes of the uploaded content, if any. */
  contentBytes: number | null;
}

export type RecordData = ConversationData | MessageData | RowData | DocumentData;

export interface DataByKind {
  conversation: ConversationData;
  message: MessageData;
  row: RowData;
  document: DocumentData;
}

/** A record as stored, whatever its kind. */
export interface StoredRecord<K extends RecordKind = RecordKind> {
  id: string;
  orgId: string;
  kind: K;
  sourceId: string;
  remoteId: string;
  public: boolean;
  ownerEmails: string[];
  native: boolean;
  objectTypeId: string | null;
  /** The list order key, epoch ms (start time, creation time…). */
  sortMs: number;
  data: DataByKind[K];
  createdMs: number;
  updatedMs: number;
  deletedMs: number | null;
}

export interface SourceEntity {
  id: string;
  orgId: string;
  name: string;
  displayName: string;
  createdMs: number;
  updatedMs: number;
  deletedMs: number | null;
}

export interface FieldDefinitionData {
  name: string;
  fieldType: FieldTypeValue;
  label: string | null;
  required: boolean;
}

export interface ObjectTypeEntity {
  id: string;
  orgId: string;
  sourceId: string;
  name: string;
  displayName: string;
  fieldDefinitions: FieldDefinitionData[];
  createdMs: number;
  updatedMs: number;
  deletedMs: number | null;
}

export type OwnerData = {
  name: string | null;
  email: string | null;
};

export type ContactData = {
  name: string | null;
  email: string | null;
  title: string | null;
  phone: string | null;
};

export interface DealData {
  dealId: string;
  name: string | null;
  accountId: string | null;
  accountName: string | null;
  stage: string | null;
  pipeline: string | null;
  amount: number | null;
  closeDate: string | null;
  closed: boolean | null;
  createdDate: string | null;
  lastActivityDate: string | null;
  owner: OwnerData | null;
  summary: Record<string, unknown> | null;
  crmAutofill: Record<string, unknown> | null;
  contacts: ContactData[];
}

export interface AccountData {
  accountId: string;
  name: string | null;
  website: string | null;
  owner: OwnerData | null;
  createdDate: string | null;
  lastActivityDate: string | null;
  contacts: ContactData[];
  syncedCrmFields: Record<string, unknown> | null;
}

export type AskStatus = 'running' | 'completed' | 'failed' | 'stopped';

export interface AskRunEntity {
  runId: string;
  threadId: string;
  orgId: string;
  message: string;
  /** The status as of the last read; `running` until `readyMs` passes. */
  status: AskStatus;
  /** The terminal status the run moves to at `readyMs`. */
  finalStatus: Exclude<AskStatus, 'running'>;
  output: string | null;
  error: string | null;
  createdMs: number;
  readyMs: number;
}

/** One page of a cursor-paginated list. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  hasMore: boolean;
}
