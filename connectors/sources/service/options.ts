import { z } from 'zod';
import { RESOURCES, RESOURCE_NAMES } from './resources.js';

const httpUrl = z
  .string()
  .min(1)
  .refine(
    (text) => {
      try {
        return ['http:', 'https:'].includes(new URL(text).protocol);
      } catch {
        return false;
      }
    },
    { message: 'must be an http(s) URL such as https://api.example.com (the embedded emulator has no URL to read from here)' },
  );

/** Options of the built-in `service` source (everything under `source:` except `type`). */
export const serviceOptions = z
  .strictObject({
    /** Root of the service to read from. @example https://api.example.com */
    baseUrl: httpUrl,
    /** A key of that organization with the `read` scope; never logged. @example ${SOURCE_API_KEY} */
    apiKey: z.string().min(1),
    /** Which list to read. */
    resource: z.enum(RESOURCE_NAMES),
    /** The list endpoint's query parameters, repeated on every page. @example { objectTypeId: 3f0c… } */
    filters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
    /** Fetch each item's detail (transcript, body, contacts…): one more request per item. @default false */
    details: z.boolean().default(false),
    /** Items per page, 1–50. @default 50 */
    pageSize: z.number().int().min(1).max(50).default(50),
    /**
     * On incremental reads, narrow the list on the server with the cursor's
     * lower-bound filter (`createdAfter`, `startedAfter`…). Items whose time
     * field is empty are then not listed at all. @default true
     */
    pushDown: z.boolean().default(true),
    /** Per request. @default 30000 */
    timeoutMs: z.number().int().positive().default(30_000),
    /** Attempts per request on 429, 5xx and network failures, the first included. @default 5 */
    maxAttempts: z.number().int().min(1).max(20).default(5),
  })
  .superRefine((options, ctx) => {
    const allowed = RESOURCES[options.resource].filters;
    for (const key of Object.keys(options.filters)) {
      if (key === 'cursor' || key === 'limit') {
        ctx.addIssue({ code: 'custom', path: ['filters', key], message: `"${key}" is managed by the connector (use pageSize for the page size)` });
      } else if (!allowed.includes(key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['filters', key],
          message: `${options.resource} cannot be filtered by "${key}" (filters: ${allowed.join(', ')})`,
        });
      }
    }
  });

export type ServiceOptions = z.output<typeof serviceOptions>;
