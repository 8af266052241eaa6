/**
 * The service's read side, described once: for each of the six readable
 * resources its list path, the array a page carries, the item's id, the list
 * filters (spec: Endpoints), the time fields and the filters that bound them,
 * and whether a detail endpoint adds to the list item.
 *
 * It lives in the SDK because both readers of the service use it: `ferry
 * export` (src/export) and the built-in `service` source, which imports
 * nothing but the SDK. The zod shapes of the same endpoints stay in src/api
 * (the one source of truth for what a request and an answer look like);
 * test/unit/sdk/service-resources.test.ts checks this table against them, so
 * the two cannot drift.
 */

export const SERVICE_RESOURCE_NAMES = ['conversations', 'messages', 'rows', 'documents', 'deals', 'accounts'] as const;
/** One of the service's readable lists. */
export type ServiceResourceName = (typeof SERVICE_RESOURCE_NAMES)[number];

/** A time field of an item and the two list filters that bound it (`startedAfter` / `startedBefore`). */
export interface TimeWindowFilter {
  /** The item's field, ISO 8601 text. */
  readonly field: string;
  /** The filter for "at or after" (the spec does not say whether it is inclusive; readers must not care). */
  readonly after: string;
  /** The filter for "at or before". */
  readonly before: string;
  /** True where the spec lets the field be null: such items are not listed by a bounded query. */
  readonly nullable: boolean;
}

/** What a reader needs to know about one list endpoint. */
export interface ServiceResource {
  readonly name: ServiceResourceName;
  /** `/v1/<name>`; the detail is `/v1/<name>/{id}`. */
  readonly path: string;
  /** The key of the item array in a page. */
  readonly itemsKey: string;
  /** The field that identifies an item (detail URL, upsert key, origin key). */
  readonly idField: string;
  /** The list's filters, without `cursor` and `limit` (readers own those). */
  readonly filters: readonly string[];
  /** Time fields of an item: the natural incremental cursors. */
  readonly timeFields: readonly string[];
  /** Time field → the filter that narrows the list to items at or after a time. */
  readonly lowerBound: Readonly<Record<string, string>>;
  /** The time field a list is sliced on for parallel reads; absent where the list has no time filter. */
  readonly window?: TimeWindowFilter;
  /** The detail endpoint returns more than the list item (transcript, body, contacts). */
  readonly detailAddsFields: boolean;
}

/** Every readable resource of the service. */
export const SERVICE_RESOURCES: Readonly<Record<ServiceResourceName, ServiceResource>> = {
  conversations: {
    name: 'conversations',
    path: '/v1/conversations',
    itemsKey: 'conversations',
    idField: 'conversationId',
    filters: ['startedAfter', 'startedBefore', 'type', 'title', 'attendees', 'crmName', 'sourceId'],
    timeFields: ['startTime', 'endTime'],
    lowerBound: { startTime: 'startedAfter' },
    window: { field: 'startTime', after: 'startedAfter', before: 'startedBefore', nullable: false },
    detailAddsFields: true,
  },
  messages: {
    name: 'messages',
    path: '/v1/messages',
    itemsKey: 'messages',
    idField: 'messageId',
    filters: ['sourceId', 'remoteId', 'threadId', 'participantEmail', 'createdAfter', 'createdBefore'],
    timeFields: ['createdAt'],
    lowerBound: { createdAt: 'createdAfter' },
    window: { field: 'createdAt', after: 'createdAfter', before: 'createdBefore', nullable: false },
    detailAddsFields: true,
  },
  rows: {
    name: 'rows',
    path: '/v1/rows',
    itemsKey: 'rows',
    idField: 'rowId',
    filters: ['sourceId', 'objectTypeId', 'remoteId', 'name', 'createdAfter', 'createdBefore'],
    timeFields: ['createdAt', 'updatedAt'],
    lowerBound: { createdAt: 'createdAfter' },
    window: { field: 'createdAt', after: 'createdAfter', before: 'createdBefore', nullable: true },
    detailAddsFields: false,
  },
  documents: {
    name: 'documents',
    path: '/v1/documents',
    itemsKey: 'documents',
    idField: 'id',
    filters: ['sourceId', 'name'],
    timeFields: ['createdAt', 'updatedAt'],
    lowerBound: {},
    detailAddsFields: false,
  },
  deals: {
    name: 'deals',
    path: '/v1/deals',
    itemsKey: 'deals',
    idField: 'dealId',
    filters: ['name', 'stage', 'closed', 'owner', 'closeDateAfter', 'closeDateBefore', 'amountMin', 'amountMax', 'lastActivityAfter', 'lastActivityBefore'],
    timeFields: ['createdDate', 'lastActivityDate', 'closeDate'],
    lowerBound: { lastActivityDate: 'lastActivityAfter', closeDate: 'closeDateAfter' },
    window: { field: 'lastActivityDate', after: 'lastActivityAfter', before: 'lastActivityBefore', nullable: true },
    detailAddsFields: true,
  },
  accounts: {
    name: 'accounts',
    path: '/v1/accounts',
    itemsKey: 'accounts',
    idField: 'accountId',
    filters: ['name', 'website', 'owner', 'createdAfter', 'createdBefore', 'lastActivityAfter', 'lastActivityBefore'],
    timeFields: ['createdDate', 'lastActivityDate'],
    lowerBound: { createdDate: 'createdAfter', lastActivityDate: 'lastActivityAfter' },
    window: { field: 'createdDate', after: 'createdAfter', before: 'createdBefore', nullable: true },
    detailAddsFields: true,
  },
};
