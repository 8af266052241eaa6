/**
 * Items of an export, page by page: the list endpoint's items, or with
 * `details: true` each item's detail (transcript, body, contacts), fetched a
 * few at a time and kept in list order.
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
  /** Detail requests in flight at once. */
  concurrency: number;
  logger: Logger;
}

export async function* readItems(
  service: ExportService,
  spec: ResourceSpec,
  query: Readonly<Record<string, string | number | boolean>>,
  options: ReadOptions,
): AsyncGenerator<ReadPage, void, undefined> {
  const detail = options.details ? spec.detail : undefined;
  const queue = detail ? new PQueue({ concurrency: options.concurrency }) : undefined;
  let warnedUnsupported = false;
  for await (const page of listPages(service, spec, query)) {
    if (!detail || !queue) {
      yield { items: page, vanished: 0 };
      continue;
    }
    const fetched = await queue.addAll(
      page.map((item) => async (): Promise<ExportItem | undefined> => {
        const id = String(item[spec.key]);
        try {
          return await detail(service, id, {});
        } catch (error) {
          if (error instanceof ServiceError && error.status === 404) {
            options.logger.debug({ id }, 'item vanished before its detail was read; skipped');
            return undefined;
          }
          // 400: the item's source has no detail on this endpoint (spec: messages); the list item is all there is.
          if (error instanceof ServiceError && error.status === 400) {
            if (!warnedUnsupported) {
              warnedUnsupported = true;
              options.logger.warn({ id, status: 400 }, 'the service has no detail for some items; exporting their list fields');
            }
            return item;
          }
          throw error;
        }
      }),
    );
    const items = fetched.filter((item): item is ExportItem => item !== undefined);
    yield { items, vanished: fetched.length - items.length };
  }
}
