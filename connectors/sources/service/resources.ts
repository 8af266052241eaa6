/**
 * The service's six readable resources as this connector sees them: list path,
 * the key of the item array in a page, the item's id, the query parameters the
 * list accepts (spec: Endpoints), and which time fields the list can filter
 * on server-side. Written down here because connectors import only the SDK;
 * a unit test checks it against src/api/endpoints.ts.
 */

export const RESOURCE_NAMES = ['conversations', 'messages', 'rows', 'documents', 'deals', 'accounts'] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

export interface ResourceSpec {
  /** `/v1/<name>`; the detail is `/v1/<name>/{id}`. */
  readonly path: string;
  readonly itemsKey: string;
  /** The item's identifier, used in the detail URL and as the origin key. */
  readonly idField: string;
  /** The list's filters (without `cursor` and `limit`, which the connector owns). */
  readonly filters: readonly string[];
  /** Time fields of an item, the natural incremental cursors. */
  readonly timeFields: readonly string[];
  /** Cursor field → list filter that narrows the list to items at or after a time. */
  readonly lowerBound: Readonly<Record<string, string>>;
}

export const RESOURCES: Readonly<Record<ResourceName, ResourceSpec>> = {
  conversations: {
    path: '/v1/conversations',
    itemsKey: 'conversations',
    idField: 'conversationId',
    filters: ['startedAfter', 'startedBefore', 'type', 'title', 'attendees', 'crmName', 'sourceId'],
    timeFields: ['startTime', 'endTime'],
    lowerBound: { startTime: 'startedAfter' },
  },
  messages: {
    path: '/v1/messages',
    itemsKey: 'messages',
    idField: 'messageId',
    filters: ['sourceId', 'remoteId', 'threadId', 'participantEmail', 'createdAfter', 'createdBefore'],
    timeFields: ['createdAt'],
    lowerBound: { createdAt: 'createdAfter' },
  },
  rows: {
    path: '/v1/rows',
    itemsKey: 'rows',
    idField: 'rowId',
    filters: ['sourceId', 'objectTypeId', 'remoteId', 'name', 'createdAfter', 'createdBefore'],
    timeFields: ['createdAt', 'updatedAt'],
    lowerBound: { createdAt: 'createdAfter' },
  },
  documents: {
    path: '/v1/documents',
    itemsKey: 'documents',
    idField: 'id',
    filters: ['sourceId', 'name'],
    timeFields: ['createdAt', 'updatedAt'],
    lowerBound: {},
  },
  deals: {
    path: '/v1/deals',
    itemsKey: 'deals',
    idField: 'dealId',
    filters: ['name', 'stage', 'closed', 'owner', 'closeDateAfter', 'closeDateBefore', 'amountMin', 'amountMax', 'lastActivityAfter', 'lastActivityBefore'],
    timeFields: ['createdDate', 'lastActivityDate', 'closeDate'],
    lowerBound: { lastActivityDate: 'lastActivityAfter', closeDate: 'closeDateAfter' },
  },
  accounts: {
    path: '/v1/accounts',
    itemsKey: 'accounts',
    idField: 'accountId',
    filters: ['name', 'website', 'owner', 'createdAfter', 'createdBefore', 'lastActivityAfter', 'lastActivityBefore'],
    timeFields: ['createdDate', 'lastActivityDate'],
    lowerBound: { createdDate: 'createdAfter', lastActivityDate: 'lastActivityAfter' },
  },
};
