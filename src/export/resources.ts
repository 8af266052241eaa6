/**
 * What an export adds to the SDK's description of each readable resource
 * (src/sdk/service-resources.ts, shared with the `service` source): the
 * client endpoint and its zod query schema (src/api), how the client fetches
 * an item's detail, and the name filters resolved to ids before reading.
 */
import type { z } from 'zod';
import type { ListEndpointName, RequestOptions, ServiceClient } from '../api/client.js';
import * as q from '../api/schemas/query.js';
import type { ExportConfig } from '../config/schema.js';
import { SERVICE_RESOURCES, type ServiceResource } from '../sdk/service-resources.js';

export type ExportResource = ExportConfig['resource'];
export type ExportItem = Record<string, unknown>;

/** The part of the client an export uses. */
export type ExportService = Pick<
  ServiceClient,
  'call' | 'getConversation' | 'getMessage' | 'getDeal' | 'getAccount' | 'listSources' | 'listObjectTypes'
>;

export interface ResourceSpec {
  resource: ExportResource;
  /** The shared description: path, items, id, filters, time window. */
  read: ServiceResource;
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
  /** Cursors that move when a record changes (its last activity): an incremental scan of changes may bound the list by them. */
  activityCursors: readonly string[];
  /** Name filters resolved to ids before the first request (`source: crm` → `sourceId`). */
  nameFilters: readonly ('source' | 'objectType')[];
}

function spec(
  resource: ExportResource,
  list: ListEndpointName,
  query: z.ZodObject,
  nameFilters: ResourceSpec['nameFilters'],
  detail?: ResourceSpec['detail'],
): ResourceSpec {
  const read = SERVICE_RESOURCES[resource];
  const activityCursors = 'lastActivityDate' in read.lowerBound ? ['lastActivityDate'] : [];
  return { resource, read, list, query, itemsKey: read.itemsKey, key: read.idField, cursors: read.lowerBound, activityCursors, nameFilters, ...(detail ? { detail } : {}) };
}

export const RESOURCES: Readonly<Record<ExportResource, ResourceSpec>> = {
  conversations: spec('conversations', 'listConversations', q.conversationListQuery, ['source'], (service, id, options) => service.getConversation(id, options)),
  messages: spec('messages', 'listMessages', q.messageListQuery, ['source'], (service, id, options) => service.getMessage(id, options)),
  rows: spec('rows', 'listRows', q.rowListQuery, ['source', 'objectType']),
  documents: spec('documents', 'listDocuments', q.documentListQuery, ['source']),
  deals: spec('deals', 'listDeals', q.dealListQuery, [], (service, id, options) => service.getDeal(id, options)),
  accounts: spec('accounts', 'listAccounts', q.accountListQuery, [], (service, id, options) => service.getAccount(id, options)),
};

/** Items are read 50 at a time, the most the service allows. */
export const PAGE_SIZE = 50;

/** One page of the resource's list for this query (filters, limit, cursor), through the client. */
export async function listPage(
  service: ExportService,
  spec: ResourceSpec,
  query: Readonly<Record<string, string | number | boolean>>,
  options: RequestOptions = {},
): Promise<{ items: ExportItem[]; hasMore: boolean; nextCursor: string | null }> {
  // The query was validated against spec.query; the client's generic query type cannot follow a runtime endpoint name.
  const page = (await service.call(spec.list, { ...options, query: query as never })) as Record<string, unknown> & {
    pagination: { hasMore: boolean; nextCursor: string | null };
  };
  const items = page[spec.itemsKey];
  return { items: Array.isArray(items) ? (items as ExportItem[]) : [], hasMore: page.pagination.hasMore, nextCursor: page.pagination.nextCursor };
}
