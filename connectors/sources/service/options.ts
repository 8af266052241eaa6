import { z } from 'zod';
import { SERVICE_RESOURCES as RESOURCES, SERVICE_RESOURCE_NAMES as RESOURCE_NAMES } from '../../../src/sdk/index.js';

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
    baseUrl: httpUrl.describe('Root of the service to read from. Example: https://api.example.com.'),
    apiKey: z.string().min(1).describe('A key of that organization with the `read` scope; never logged. Example: ${SOURCE_API_KEY}.'),
    resource: z.enum(RESOURCE_NAMES).describe('Which list to read.'),
    filters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}).describe('The list endpoint\'s query parameters, repeated on every page. Example: { objectTypeId: 3f0c… }.'),
    details: z.boolean().default(false).describe('Fetch each item\'s detail (transcript, body, contacts…): one more request per item.'),
    pageSize: z.number().int().min(1).max(50).default(50).describe('Items per page, 1–50.'),
    pushDown: z.boolean().default(true).describe('On incremental reads, narrow the list on the server with the cursor\'s lower-bound filter (`createdAfter`, `startedAfter`…). Items whose time field is empty are then not listed at all.'),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(1)
      .describe('Requests (list pages, and details with details: true) in flight at once. Above 1, a list with a time filter is read as time windows at once (exact at the windows\' edges), details are fetched behind the pages, and records come in no particular order.'),
    timeoutMs: z.number().int().positive().default(30_000).describe('Per request.'),
    maxAttempts: z.number().int().min(1).max(20).default(5).describe('Attempts per request on 429, 5xx and network failures, the first included.'),
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
