/**
 * The service's read side as the console's Data page shows it: each resource
 * with its list endpoint, the filters the spec gives it (read from the query
 * schemas in src/api, so they cannot drift), and its detail endpoint.
 */
import type { z } from 'zod';
import { ENDPOINTS } from '../api/endpoints.js';
import type { EndpointName } from '../api/endpoints.js';
import type { ServiceClient } from '../api/client.js';
import { FerryError } from '../sdk/errors.js';

interface Resource {
  list: EndpointName;
  get: EndpointName;
  /** The path parameter of the detail endpoint. */
  idParam: string;
  /** The array of items in a list answer (sources and object types answer without paging). */
  itemsKey: string;
}

export const RESOURCES: Record<string, Resource> = {
  conversations: { list: 'listConversations', get: 'getConversation', idParam: 'conversationId', itemsKey: 'conversations' },
  messages: { list: 'listMessages', get: 'getMessage', idParam: 'messageId', itemsKey: 'messages' },
  rows: { list: 'listRows', get: 'getRow', idParam: 'rowId', itemsKey: 'rows' },
  documents: { list: 'listDocuments', get: 'getDocument', idParam: 'documentId', itemsKey: 'documents' },
  deals: { list: 'listDeals', get: 'getDeal', idParam: 'dealId', itemsKey: 'deals' },
  accounts: { list: 'listAccounts', get: 'getAccount', idParam: 'accountId', itemsKey: 'accounts' },
  sources: { list: 'listSources', get: 'getSource', idParam: 'sourceId', itemsKey: 'sources' },
  'object-types': { list: 'listObjectTypes', get: 'getObjectType', idParam: 'objectTypeId', itemsKey: 'objectTypes' },
};

function queryShape(name: EndpointName): z.ZodObject | undefined {
  const endpoint = ENDPOINTS[name] as { query?: z.ZodType };
  return endpoint.query as z.ZodObject | undefined;
}

/** Each resource with the filters of its list endpoint (pagination's `cursor` aside). */
export function describeResources(): { name: string; filters: string[] }[] {
  return Object.entries(RESOURCES).map(([name, r]) => ({
    name,
    filters: Object.keys(queryShape(r.list)?.shape ?? {}).filter((key) => key !== 'cursor'),
  }));
}

function resourceOf(name: string): Resource {
  const resource = RESOURCES[name];
  if (!resource) throw new FerryError('FERRY_USAGE', `no resource "${name}"; one of ${Object.keys(RESOURCES).join(', ')}`);
  return resource;
}

/** One page of a list endpoint, with the filters as given (checked against the spec's query schema first). */
export async function listPage(client: ServiceClient, name: string, params: URLSearchParams): Promise<unknown> {
  const resource = resourceOf(name);
  const schema = queryShape(resource.list);
  const query: Record<string, string> = {};
  for (const [key, value] of params) if (value !== '') query[key] = value;
  if (schema) {
    const unknown = Object.keys(query).filter((key) => !(key in schema.shape));
    if (unknown.length > 0) throw new FerryError('FERRY_USAGE', `${name} has no filter ${unknown.join(', ')}; its filters: ${Object.keys(schema.shape).join(', ')}`);
    const parsed = schema.safeParse(query);
    if (!parsed.success) throw new FerryError('FERRY_USAGE', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  const page = (await client.call(resource.list, { query: query as never, retry: false } as never)) as Record<string, unknown>;
  const items = page[resource.itemsKey];
  const first: unknown = Array.isArray(items) ? items[0] : undefined;
  // Items name their id after the resource (rowId, conversationId) or plainly `id` (documents, sources).
  const idKey = first !== null && typeof first === 'object' && resource.idParam in first ? resource.idParam : 'id';
  return { resource: name, itemsKey: resource.itemsKey, idKey, ...page };
}

export async function getItem(client: ServiceClient, name: string, id: string): Promise<unknown> {
  const resource = resourceOf(name);
  return client.call(resource.get, { params: { [resource.idParam]: id } });
}
