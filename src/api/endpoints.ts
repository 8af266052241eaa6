/**
 * Every endpoint of the service in one table: method, path, scope and the
 * schemas of its query, body and success response. The client builds its
 * methods from it and the emulator routes and validates with it, so the two
 * cannot drift apart.
 */
import type { z } from 'zod';
import type { Scope } from './schemas/common.js';
import * as q from './schemas/query.js';
import * as r from './schemas/read.js';
import * as w from './schemas/write.js';

export interface Endpoint {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path template; `{name}` marks a path parameter. */
  readonly path: string;
  /** Required scope; `null` for any valid key, `'none'` for unauthenticated. */
  readonly scope: Scope | null | 'none';
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  readonly response: z.ZodType;
  /** Status of a successful answer. */
  readonly status: number;
  /** For list endpoints: the key of the item array in the page. */
  readonly itemsKey?: string;
}

const endpoint = <const E extends Endpoint>(e: E): E => e;

export const ENDPOINTS = {
  health: endpoint({ method: 'GET', path: '/v1/health', scope: null, response: r.healthResponse, status: 200 }),

  ask: endpoint({ method: 'POST', path: '/v1/ask-assistant', scope: 'ask_assistant', body: w.askRequest, response: r.askRun, status: 200 }),
  pollAsk: endpoint({ method: 'GET', path: '/v1/ask-assistant/{threadId}/{runId}', scope: 'ask_assistant', response: r.askRun, status: 200 }),

  listConversations: endpoint({ method: 'GET', path: '/v1/conversations', scope: 'read', query: q.conversationListQuery, response: r.conversationPage, status: 200, itemsKey: 'conversations' }),
  getConversation: endpoint({ method: 'GET', path: '/v1/conversations/{conversationId}', scope: 'read', response: r.conversationDetail, status: 200 }),
  createConversation: endpoint({ method: 'POST', path: '/v1/conversations', scope: 'ingest', body: w.conversationRequest, response: r.recordResponse, status: 201 }),
  deleteConversation: endpoint({ method: 'DELETE', path: '/v1/conversations', scope: 'ingest', query: q.recordKeyQuery, response: r.deletedRecordResponse, status: 200 }),

  listDeals: endpoint({ method: 'GET', path: '/v1/deals', scope: 'read', query: q.dealListQuery, response: r.dealPage, status: 200, itemsKey: 'deals' }),
  getDeal: endpoint({ method: 'GET', path: '/v1/deals/{dealId}', scope: 'read', response: r.dealDetail, status: 200 }),

  listAccounts: endpoint({ method: 'GET', path: '/v1/accounts', scope: 'read', query: q.accountListQuery, response: r.accountPage, status: 200, itemsKey: 'accounts' }),
  getAccount: endpoint({ method: 'GET', path: '/v1/accounts/{accountId}', scope: 'read', response: r.accountDetail, status: 200 }),

  listMessages: endpoint({ method: 'GET', path: '/v1/messages', scope: 'read', query: q.messageListQuery, response: r.messagePage, status: 200, itemsKey: 'messages' }),
  getMessage: endpoint({ method: 'GET', path: '/v1/messages/{messageId}', scope: 'read', response: r.messageDetail, status: 200 }),
  createMessage: endpoint({ method: 'POST', path: '/v1/messages', scope: 'ingest', body: w.messageRequest, response: r.recordResponse, status: 201 }),
  deleteMessage: endpoint({ method: 'DELETE', path: '/v1/messages', scope: 'ingest', query: q.recordKeyQuery, response: r.deletedRecordResponse, status: 200 }),

  listRows: endpoint({ method: 'GET', path: '/v1/rows', scope: 'read', query: q.rowListQuery, response: r.rowPage, status: 200, itemsKey: 'rows' }),
  getRow: endpoint({ method: 'GET', path: '/v1/rows/{rowId}', scope: 'read', response: r.row, status: 200 }),
  createRow: endpoint({ method: 'POST', path: '/v1/rows', scope: 'ingest', body: w.rowRequest, response: r.recordResponse, status: 201 }),
  updateRow: endpoint({ method: 'PATCH', path: '/v1/rows', scope: 'ingest', query: q.recordKeyQuery, body: w.updateRowRequest, response: r.recordResponse, status: 200 }),
  deleteRow: endpoint({ method: 'DELETE', path: '/v1/rows', scope: 'ingest', query: q.recordKeyQuery, response: r.deletedRecordResponse, status: 200 }),

  listDocuments: endpoint({ method: 'GET', path: '/v1/documents', scope: 'read', query: q.documentListQuery, response: r.documentPage, status: 200, itemsKey: 'documents' }),
  getDocument: endpoint({ method: 'GET', path: '/v1/documents/{documentId}', scope: 'read', response: r.documentItem, status: 200 }),
  createDocument: endpoint({ method: 'POST', path: '/v1/documents', scope: 'ingest', body: w.documentRequest, response: r.recordResponse, status: 201 }),
  updateDocument: endpoint({ method: 'PATCH', path: '/v1/documents', scope: 'ingest', query: q.recordKeyQuery, body: w.updateDocumentRequest, response: r.recordResponse, status: 200 }),
  deleteDocument: endpoint({ method: 'DELETE', path: '/v1/documents', scope: 'ingest', query: q.recordKeyQuery, response: r.deletedRecordResponse, status: 200 }),

  createSource: endpoint({ method: 'POST', path: '/v1/sources', scope: 'ingest', body: w.createSourceRequest, response: r.sourceResponse, status: 201 }),
  listSources: endpoint({ method: 'GET', path: '/v1/sources', scope: 'read', query: q.sourceListQuery, response: r.sourceList, status: 200 }),
  getSource: endpoint({ method: 'GET', path: '/v1/sources/{sourceId}', scope: 'read', response: r.sourceResponse, status: 200 }),
  updateSource: endpoint({ method: 'PATCH', path: '/v1/sources/{sourceId}', scope: 'ingest', body: w.updateSourceRequest, response: r.sourceResponse, status: 200 }),
  deleteSource: endpoint({ method: 'DELETE', path: '/v1/sources/{sourceId}', scope: 'ingest', response: r.deletedResourceResponse, status: 200 }),

  createObjectType: endpoint({ method: 'POST', path: '/v1/object-types', scope: 'ingest', body: w.createObjectTypeRequest, response: r.objectTypeResponse, status: 201 }),
  listObjectTypes: endpoint({ method: 'GET', path: '/v1/object-types', scope: 'read', query: q.objectTypeListQuery, response: r.objectTypeList, status: 200 }),
  getObjectType: endpoint({ method: 'GET', path: '/v1/object-types/{objectTypeId}', scope: 'read', response: r.objectTypeResponse, status: 200 }),
  updateObjectType: endpoint({ method: 'PATCH', path: '/v1/object-types/{objectTypeId}', scope: 'ingest', body: w.updateObjectTypeRequest, response: r.objectTypeResponse, status: 200 }),
  deleteObjectType: endpoint({ method: 'DELETE', path: '/v1/object-types/{objectTypeId}', scope: 'ingest', response: r.deletedResourceResponse, status: 200 }),
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;
