/**
 * Items of an export, page by page: the list endpoint's items, or with
 * `details: true` each item's detail (transcript, body, contacts). The list
 * is read by the SDK's sliced reader (src/sdk/sliced-list.ts, shared with
 * the `service` source): time windows paged at once where that is exact,
 * details fetched behind the pages, every request under one ceiling — at
 * most `concurrency` in flight and, when set, `requestsPerSecond` started
 * per second; the client's request gate adds the API key's shared budget.
 * Pages come in no particular order.
 */
import type { Logger } from 'pino';
import { ServiceError } from '../api/service-error.js';
import { readSlicedList, type SlicedPage } from '../sdk/sliced-list.js';
import type { ExportItem, ExportService, ResourceSpec } from './resources.js';
import { listPage } from './resources.js';

export interface ReadPage extends SlicedPage {
  items: ExportItem[];
  /** Items listed but gone (404) by the time their detail was fetched. */
  vanished: number;
}

export interface ReadOptions {
  details: boolean;
  /** Requests in flight at once. */
  concurrency: number;
  /** Requests started per second at most; unlimited when absent. */
  requestsPerSecond?: number;
  /** `auto`: read time windows at once where exact; `off`: one cursor chain. @default 'auto' */
  slices?: 'auto' | 'off';
  /** Items without the list's time field: `include` (exact) or `exclude` (faster where the field may be null). @default 'include' */
  undated?: 'include' | 'exclude';
  signal?: AbortSignal;
  logger: Logger;
}

export function readItems(
  service: ExportService,
  spec: ResourceSpec,
  query: Readonly<Record<string, string | number | boolean>>,
  options: ReadOptions,
): AsyncGenerator<ReadPage, void, undefined> {
  const detail = options.details ? spec.detail : undefined;
  return readSlicedList({
    resource: spec.read,
    query,
    // A round of probes is waited for whole: the control's pacer must not spread it over the round trip.
    fetchPage: (pageQuery, signal, probe) => listPage(service, spec, pageQuery, probe ? { signal, spread: false } : { signal }),
    ...(detail ? { detail: detailFetcher(service, spec, detail, options.logger) } : {}),
    concurrency: options.concurrency,
    ...(options.requestsPerSecond ? { requestsPerSecond: options.requestsPerSecond } : {}),
    ...(options.slices ? { slices: options.slices } : {}),
    ...(options.undated ? { undated: options.undated } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** An item's detail; undefined when it vanished (404); the list item itself where the service has no detail for it (400). */
function detailFetcher(
  service: ExportService,
  spec: ResourceSpec,
  detail: NonNullable<ResourceSpec['detail']>,
  logger: Logger,
): (item: ExportItem, signal: AbortSignal) => Promise<ExportItem | undefined> {
  let warnedUnsupported = false;
  return async (item, signal) => {
    const id = String(item[spec.key]);
    try {
      return await detail(service, id, { signal });
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) {
        logger.debug({ id }, 'item vanished before its detail was read; skipped');
        return undefined;
      }
      // 400: the item's source has no detail on this endpoint (spec: messages); the list item is all there is.
      if (error instanceof ServiceError && error.status === 400) {
        if (!warnedUnsupported) {
          warnedUnsupported = true;
          logger.warn({ id, status: 400 }, 'the service has no detail for some items; exporting their list fields');
        }
        return item;
      }
      throw error;
    }
  };
}
