/**
 * What ferry knows about each exportable resource: its list endpoint and
 * query schema, the field that identifies an item, how to fetch an item's
 * detail, and which time fields the list endpoint can bound (the only ones an
 * incremental export can use).
 */
import type { z } from 'zod';
import type { ListEndpointName, RequestOptions, ServiceClient } from '../api/client.js';
import * as q from '../api/schemas/query.js';
import type { ExportConfig } from '../config/schema.js';

export type ExportResource = ExportConfig['resource'];
export type ExportItem = Record<string, unknown>;

/** The part of the client an export uses. */
export type ExportService = Pick<
  ServiceClient,
  'pages' | 'getConversation' | 'getMessage' | 'getDeal' | 'getAccount' | 'listSources' | 'listObjectTypes'
>;

export interface ResourceSpec {
  resource: ExportResource;
  list: ListEndpointName;
  /** The list endpoint's query schema: filters are checked against it. */
  query: z.ZodObject;
  /** The item's array in a page. */
  itemsKey: string;
  /** The field that identifies an item; table destinations upsert by it. */
  key: string;
  /** Fetch the detail of an item; absent where list and detail are identical (rows, documents). */
  detail?: (service: ExportService, id: string, options: RequestOptions) => Promise<ExportItem>;
  /** Time field → the list query parameter that is its lower bound. */
  cursors: Readonly<Record<string, string>>;
  /** Name filters resolved to ids before the first request (`source: crm` → `sourceId`). */
  nameFilters: readonly ('source' | 'objectType')[];
}

export const RESOURCES: Readonly<Record<ExportResource, ResourceSpec>> = {
  conversations: {
    resource: 'conversations',
    list: 'listConversations',
    query: q.conversationListQuery,
    itemsKey: 'conversations',
    key: 'conversationId',
    detail: (service, id, options) => service.getConversation(id, options),
    cursors: { startTime: 'startedAfter' },
    nameFilters: ['source'],
  },
  messages: {
    resource: 'messages',
    list: 'listMessages',
    query: q.messageListQuery,
    itemsKey: 'messages',
    key: 'messageId',
    detail: (service, id, options) => service.getMessage(id, options),
    cursors: { createdAt: 'createdAfter' },
    nameFilters: ['source'],
  },
  rows: {
    resource: 'rows',
    list: 'listRows',
    query: q.rowListQuery,
    itemsKey: 'rows',
    key: 'rowId',
    cursors: { createdAt: 'createdAfter' },
    nameFilters: ['source', 'objectType'],
  },
  documents: {
    resource: 'documents',
    list: 'listDocuments',
    query: q.documentListQuery,
    itemsKey: 'documents',
    key: 'id',
    cursors: {},
    nameFilters: ['source'],
  },
  deals: {
    resource: 'deals',
    list: 'listDeals',
    query: q.dealListQuery,
    itemsKey: 'deals',
    key: 'dealId',
    detail: (service, id, options) => service.getDeal(id, options),
    cursors: { lastActivityDate: 'lastActivityAfter', closeDate: 'closeDateAfter' },
    nameFilters: [],
  },
  accounts: {
    resource: 'accounts',
    list: 'listAccounts',
    query: q.accountListQuery,
    itemsKey: 'accounts',
    key: 'accountId',
    detail: (service, id, options) => service.getAccount(id, options),
    cursors: { createdDate: 'createdAfter', lastActivityDate: 'lastActivityAfter' },
    nameFilters: [],
  },
};

/** Items are read 50 at a time, the most the service allows. */
export const PAGE_SIZE = 50;

/** Every page of the resource's list, filters repeated on each request. */
export async function* listPages(
  service: ExportService,
  spec: ResourceSpec,
  query: Readonly<Record<string, string | number | boolean>>,
  options: RequestOptions = {},
): AsyncGenerator<ExportItem[], void, undefined> {
  // The query was validated against spec.query; the client's generic filter type cannot follow a runtime endpoint name.
  const pages = service.pages(spec.list, { ...query, limit: PAGE_SIZE } as never, options) as AsyncIterable<Record<string, unknown>>;
  for await (const page of pages) {
    const items = page[spec.itemsKey];
    yield Array.isArray(items) ? (items as ExportItem[]) : [];
  }
}
