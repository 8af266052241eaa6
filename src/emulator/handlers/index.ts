/** One handler per endpoint of ENDPOINTS; the type makes a missing one a compile error. */
import type { HandlerTable } from '../http/context.js';
import { ask, pollAsk } from './ask.js';
import { createConversation, deleteConversation, getConversation, listConversations } from './conversations.js';
import { getAccount, getDeal, listAccounts, listDeals } from './crm.js';
import { createDocument, deleteDocument, getDocument, listDocuments, updateDocument } from './documents.js';
import { health } from './health.js';
import { createMessage, deleteMessage, getMessage, listMessages } from './messages.js';
import { createObjectType, deleteObjectType, getObjectType, listObjectTypes, updateObjectType } from './object-types.js';
import { createRow, deleteRow, getRow, listRows, updateRow } from './rows.js';
import { createSource, deleteSource, getSource, listSources, updateSource } from './sources.js';

export const HANDLERS: HandlerTable = {
  health,
  ask,
  pollAsk,
  listConversations,
  getConversation,
  createConversation,
  deleteConversation,
  listDeals,
  getDeal,
  listAccounts,
  getAccount,
  listMessages,
  getMessage,
  createMessage,
  deleteMessage,
  listRows,
  getRow,
  createRow,
  updateRow,
  deleteRow,
  listDocuments,
  getDocument,
  createDocument,
  updateDocument,
  deleteDocument,
  createSource,
  listSources,
  getSource,
  updateSource,
  deleteSource,
  createObjectType,
  listObjectTypes,
  getObjectType,
  updateObjectType,
  deleteObjectType,
};

/** Endpoints whose handler awaits the injected latency itself, inside its record lock. */
export const RECORD_WRITES: ReadonlySet<string> = new Set([
  'createConversation',
  'deleteConversation',
  'createMessage',
  'deleteMessage',
  'createRow',
  'updateRow',
  'deleteRow',
  'createDocument',
  'updateDocument',
  'deleteDocument',
]);
