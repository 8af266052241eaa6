/**
 * The JSON seed format: native records the service gets from integrations
 * (CRM deals and accounts, meeting-provider conversations, mailbox
 * messages, chat uploads), which /v1 cannot create. Documented in docs/emulator.md.
 */
import { z } from 'zod';
import {
  NATIVE_CONVERSATION_SOURCES,
  NATIVE_DOCUMENT_SOURCES,
  NATIVE_MESSAGE_SOURCES,
  lenientTimestampInput as timestampInput,
  sourceIdIn,
  uuid,
} from '../../api/schemas/common.js';
import { CRM_TYPES } from '../../api/schemas/read.js';

const text = z.string().nullable().optional();
const when = timestampInput.nullable().optional();
const object = z.record(z.string(), z.unknown()).nullable().optional();

export const seedOwner = z.object({ name: text, email: text });
export const seedContact = z.object({ name: text, email: text, title: text, phone: text });

export const seedDeal = z.object({
  dealId: z.string().min(1),
  name: text,
  /** Links the deal to an account for `latestDeal`; without it the account is matched by accountName. */
  accountId: text,
  accountName: text,
  stage: text,
  pipeline: text,
  amount: z.number().nullable().optional(),
  closeDate: when,
  closed: z.boolean().nullable().optional(),
  createdDate: when,
  lastActivityDate: when,
  owner: seedOwner.nullable().optional(),
  summary: object,
  crmAutofill: object,
  contacts: z.array(seedContact).optional(),
});

export const seedAccount = z.object({
  accountId: z.string().min(1),
  name: text,
  website: text,
  owner: seedOwner.nullable().optional(),
  createdDate: when,
  lastActivityDate: when,
  contacts: z.array(seedContact).optional(),
  syncedCrmFields: object,
});

/** `true`: a generated tone; or bytes from a file (relative to the seed file) or base64. */
export const seedMedia = z.union([
  z.literal(true),
  z.object({ path: z.string().optional(), base64: z.string().optional(), contentType: z.string().optional() }),
]);

export const seedConversation = z.object({
  /** conversationId; derived from sourceId + remoteId when absent. */
  id: uuid.optional(),
  /** A native meeting-provider string of the spec (or a source UUID), so a list filter on it round-trips. */
  sourceId: sourceIdIn(NATIVE_CONVERSATION_SOURCES).default('service'),
  remoteId: z.string().optional(),
  title: text,
  startTime: timestampInput,
  /** Defaults to the last transcript entry's end, else startTime. */
  endTime: when,
  /** Computed from participant e-mail domains when absent. */
  type: z.enum(['INTERNAL', 'EXTERNAL']).optional(),
  participants: z.array(z.object({ name: text, email: text, attended: z.boolean().default(true) })).default([]),
  crm: z.object({ id: text, name: text, type: z.enum(CRM_TYPES).nullable().optional() }).nullable().optional(),
  category: text,
  summary: object,
  /** Read-side entries: offsets in seconds from the start. */
  transcript: z.array(z.object({ speaker: z.string(), text: z.string(), startTime: z.number(), endTime: z.number().optional() })).optional(),
  recording: z.object({ audio: seedMedia.optional(), video: seedMedia.optional() }).optional(),
  public: z.boolean().default(true),
});

export const seedMessage = z.object({
  id: uuid.optional(),
  sourceId: sourceIdIn(NATIVE_MESSAGE_SOURCES).default('gmail'),
  remoteId: z.string().optional(),
  threadId: text,
  subject: text,
  sender: seedOwner.nullable().optional(),
  recipients: z.array(seedOwner).default([]),
  body: z.string().default(''),
  createdAt: timestampInput,
  attachments: z
    .array(z.object({ id: uuid.optional(), filename: text, contentType: text, size: z.number().int().nullable().optional() }))
    .optional(),
  public: z.boolean().default(true),
});

export const seedDocument = z.object({
  id: uuid.optional(),
  sourceId: sourceIdIn(NATIVE_DOCUMENT_SOURCES).default('chat_upload'),
  remoteId: z.string().optional(),
  displayName: z.string().min(1),
  url: text,
  contentType: z.string().default('text/plain'),
  /** Text content, searchable by the ask assistant. */
  text: text,
  createdAt: when,
  updatedAt: when,
  public: z.boolean().default(true),
});

export const seedDataset = z.object({
  /** Organization the data belongs to; defaults to the dev organization or the keys file's first one. */
  orgId: uuid.optional(),
  deals: z.array(seedDeal).default([]),
  accounts: z.array(seedAccount).default([]),
  conversations: z.array(seedConversation).default([]),
  messages: z.array(seedMessage).default([]),
  documents: z.array(seedDocument).default([]),
});

/** One dataset, or several (one per organization). */
export const seedFile = z.union([seedDataset, z.array(seedDataset)]);
export type SeedFile = z.input<typeof seedFile>;
export type SeedDataset = z.output<typeof seedDataset>;

/** Input shapes of one seed entry each, as a generator writes them. */
export type SeedDealInput = z.input<typeof seedDeal>;
export type SeedAccountInput = z.input<typeof seedAccount>;
export type SeedContactInput = z.input<typeof seedContact>;
export type SeedConversationInput = z.input<typeof seedConversation>;
export type SeedMessageInput = z.input<typeof seedMessage>;
export type SeedDocumentInput = z.input<typeof seedDocument>;
export type SeedDatasetInput = z.input<typeof seedDataset>;
