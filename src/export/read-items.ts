/**
 * Items of an export, page by page: the list endpoint's items, or with
 * `details: true` each item's detail (transcript, body, contacts), kept in
 * list order. Every request, list pages and details alike, goes through one
 * queue: at most `concurrency` in flight and, when set, at most
 * `requestsPerSecond` started per second (the service's own rate ceiling,
 * the one pushes respect). The next list page is fetched while the details
 * of the current one are, so the pipeline does not drain at page ends.
 */
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { ServiceError } from '../api/service-error.js';
import type { ExportItem, ExportService, ResourceSpec } from './resources.js';
import { listPages } from './resources.js';

export interface ReadPage {
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
  logger: Logger;
}

export async function* readItems(
  service: ExportService,
  spec: ResourceSpec,
  query: Readonly<Record<string, string | number | boolean>>,
  options: ReadOptions,
): AsyncGenerator<ReadPage, void, undefined> {
  const detail = options.details ? spec.detail : undefined;
  const rate = options.requestsPerSecond;
  const queue = new PQueue({ concurrency: options.concurrency, ...(rate ? { interval: 1000, intervalCap: Math.max(1, Math.floor(rate)) } : {}) });
  const pages = listPages(service, spec, query)[Symbol.asyncIterator]();
  const fetchDetail = detail ? detailFetcher(service, spec, detail, options.logger) : undefined;
  const nextPage = () => {
    const page = queue.add(() => pages.next());
    // Awaited on the next turn; a rejection before then must not count as unhandled.
    page.catch(() => undefined);
    return page;
  };
  try {
    let pending = nextPage();
    for (;;) {
      const result = await pending;
      if (result.done) return;
      pending = nextPage();
      if (!fetchDetail) {
        yield { items: result.value, vanished: 0 };
        continue;
      }
      const fetched = await Promise.all(result.value.map((item) => queue.add(() => fetchDetail(item))));
      const items = fetched.filter((item): item is ExportItem => item !== undefined);
      yield { items, vanished: fetched.length - items.length };
    }
  } finally {
    queue.clear();
    await pages.return(undefined).catch(() => undefined);
  }
}

/** An item's detail; undefined when it vanished (404); the list item itself where the service has no detail for it (400). */
function detailFetcher(
  service: ExportService,
  spec: ResourceSpec,
  detail: NonNullable<ResourceSpec['detail']>,
  logger: Logger,
): (item: ExportItem) => Promise<ExportItem | undefined> {
  let warnedUnsupported = false;
  return async (item) => {
    const id = String(item[spec.key]);
    try {
      return await detail(service, id, {});
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
