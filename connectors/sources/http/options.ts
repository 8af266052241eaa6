/**
 * Options of the built-in `http` source: a declarative REST API reader
 * (after Airbyte's low-code connectors). Validated once here, then
 * normalised: a single stream written at the top level becomes a one-item
 * `streams` list, and `stream` names the stream the sync reads.
 */
import { z } from 'zod';
import { messageOf } from '../../../src/sdk/index.js';
import { parseSelector } from './selector.js';

/** A JSONPath-like selector, checked at load so a typo is a config error with a position. */
const selectorText = z.string().superRefine((text, ctx) => {
  try {
    parseSelector(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: messageOf(error) });
  }
});

/** Query parameters and headers: YAML numbers and booleans are sent as text. */
const textMap = z.record(
  z.string().min(1),
  z.union([z.string(), z.number(), z.boolean()]).transform((value) => String(value)),
);

const keyList = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .transform((key) => (typeof key === 'string' ? [key] : key));

/** Where a paging or incremental parameter goes: the query string, or (POST) the JSON body. */
const placement = z.enum(['query', 'body']).default('query').describe('Where the parameter goes: the query string, or (POST) the JSON body.');

export const authOption = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('bearer'),
    token: z.string().min(1).describe('Sent as `Authorization: Bearer <token>`.'),
  }),
  z.strictObject({
    type: z.literal('basic'),
    username: z.string().describe('User name of HTTP Basic authentication.'),
    password: z.string().describe('Password of HTTP Basic authentication (use ${VAR}).'),
  }),
  z.strictObject({
    type: z.literal('apiKey'),
    in: z.enum(['header', 'query']).default('header').describe('Send the key as a header or as a query parameter.'),
    name: z.string().min(1).describe('Header or query-parameter name. Example: X-Api-Key.'),
    value: z.string().min(1).describe('The API key (use ${VAR}).'),
  }),
  z.strictObject({
    type: z.literal('oauth2'),
    tokenUrl: z.url({ protocol: /^https?$/, message: 'tokenUrl must be an http(s) URL' }).describe('Token endpoint of the client-credentials grant.'),
    clientId: z.string().min(1).describe('OAuth2 client id.'),
    clientSecret: z.string().min(1).describe('OAuth2 client secret (use ${VAR}).'),
    scope: z.string().optional().describe('Scope(s) to request, space-separated.'),
    audience: z.string().optional().describe('Audience to request (some providers, e.g. Auth0, need it).'),
    clientAuth: z.enum(['body', 'basic']).default('body').describe('How the client authenticates to the token endpoint: form fields, or HTTP Basic.'),
    expiryMarginSeconds: z.number().nonnegative().default(60).describe('Renew the token this many seconds before `expires_in` runs out.'),
  }),
], { error: (issue) => (issue.code === 'invalid_union' ? 'auth.type must be one of bearer, basic, apiKey, oauth2' : undefined) });
export type AuthOption = z.output<typeof authOption>;

export const paginationOption = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({
    type: z.literal('cursor'),
    cursorPath: selectorText.describe('Where the next cursor is in the response body. Example: $.meta.next_cursor.'),
    param: z.string().min(1).default('cursor').describe('The request parameter that carries it.'),
    stopPath: selectorText.optional().describe('A boolean in the body; a false value ends the read. Example: $.meta.has_more.'),
    in: placement,
  }),
  z.strictObject({
    type: z.literal('nextLink'),
    path: selectorText.describe('Where the next page\'s URL (absolute or relative) is in the body. Example: $.links.next.'),
  }),
  z.strictObject({ type: z.literal('linkHeader') }),
  z.strictObject({
    type: z.literal('page'),
    param: z.string().min(1).default('page').describe('The request parameter carrying the page number.'),
    start: z.number().int().default(1).describe('Number of the first page.'),
    sizeParam: z.string().min(1).optional().describe('The request parameter for the page size; sent only when `size` is set. Example: per_page.'),
    size: z.number().int().positive().optional().describe('Page size; a page shorter than this is the last one.'),
    in: placement,
  }),
  z.strictObject({
    type: z.literal('offset'),
    param: z.string().min(1).default('offset').describe('The request parameter carrying the offset of the first record.'),
    limitParam: z.string().min(1).default('limit').describe('The request parameter carrying the page size.'),
    limit: z.number().int().positive().default(100).describe('Records per page; a page shorter than this is the last one.'),
    in: placement,
  }),
], { error: (issue) => (issue.code === 'invalid_union' ? 'pagination.type must be one of none, cursor, nextLink, linkHeader, page, offset' : undefined) });
export type PaginationOption = z.output<typeof paginationOption>;

export const incrementalOption = z.strictObject({
  param: z.string().min(1).describe('Request parameter that receives the stored cursor. Example: updated_since.'),
  format: z.enum(['raw', 'iso', 'unix', 'unix_ms']).default('raw').describe('How the cursor is written into the parameter.'),
  start: z.union([z.string().min(1), z.number()]).optional().describe('Sent when there is no stored cursor yet (first or full-refresh run).'),
  in: placement,
});
export type IncrementalOption = z.output<typeof incrementalOption>;

const parentOption = z.strictObject({
  stream: z.string().min(1).describe('Name of the parent stream.'),
  key: z.string().min(1).describe('Field of each parent record whose value is substituted (dot path allowed). Example: id.'),
  as: z.string().regex(/^[A-Za-z_][\w-]*$/, 'a placeholder name: letters, digits, _ and -').describe('Placeholder name in the child\'s `path`: `{account_id}`.'),
});

/** Everything that describes one stream; at the top level these keys describe the only stream. */
const streamFields = {
  path: z.string().min(1).describe('Path below `baseUrl` (or an absolute URL), with `{placeholders}` bound by `parent`.'),
  method: z.enum(['GET', 'POST']).default('GET').describe('HTTP method of the requests.'),
  body: z.record(z.string(), z.unknown()).optional().describe('JSON body of a POST request.'),
  params: textMap.optional().describe('Query parameters sent with every request of the stream.'),
  recordSelector: selectorText.default('$').describe('Where the records are in a response. `$` is the whole body (an array, or one object).'),
  primaryKey: keyList.optional().describe('Field(s) identifying a record: the origin key and the incremental tie-breaker.'),
  pagination: paginationOption.default({ type: 'none' }).describe('How to fetch the next page: none, cursor, nextLink, linkHeader, page or offset.'),
  incremental: incrementalOption.optional().describe('Send the stored cursor as a request parameter, so the API returns only what changed.'),
  maxPages: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Most pages one walk of the stream may read (per parent record for a child stream); one more is FERRY_SOURCE_RESPONSE_TOO_LARGE. Unset: no limit beyond loop detection.'),
};

const streamOption = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][\w.-]*$/, 'a stream name: letters, digits, _, - and .').describe('The stream\'s name: what `stream:` and `parent.stream` refer to.'),
  ...streamFields,
  headers: textMap.optional().describe('Headers of this stream only (on top of the source\'s).'),
  parent: parentOption.optional().describe('Read this stream once per record of another stream.'),
  includeParentKey: z.boolean().default(false).describe('Add the parent key to every record, under the `parent.as` name.'),
});

const retryOption = z.strictObject({
  maxAttempts: z.number().int().min(1).max(20).default(5).describe('Attempts in total, the first included.'),
  baseDelayMs: z.number().int().min(0).default(500).describe('First backoff window in ms (full jitter, doubling).'),
  maxDelayMs: z.number().int().min(0).default(60_000).describe('Longest single wait, Retry-After included, in ms.'),
});

/** An origin (`https://cdn.example.com`): scheme, host and an optional port, nothing after. */
const originText = z
  .string()
  .regex(/^https?:\/\/[^/?#\s]+\/?$/i, 'an origin: http(s)://host[:port], without a path');

const rawOptions = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/, message: 'baseUrl must be an http(s) URL' }).describe('Root URL of the API; stream paths resolve against it. Example: https://api.example.com/v2.'),
  headers: textMap.optional().describe('Headers sent with every request.'),
  auth: authOption.optional().describe('Authentication: bearer, basic, apiKey or oauth2 (client credentials).'),
  maxRequestsPerSecond: z.number().positive().optional().describe('Upper bound on the requests per second this source sends; the rate itself adapts to the API\'s 429s, Retry-After and RateLimit-* headers. Unset: no bound.'),
  retry: retryOption.default({ maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 60_000 }).describe('Retries of transient failures (network errors, 408, 429, 5xx).'),
  timeoutMs: z.number().int().positive().default(30_000).describe('Per-request timeout, response body included, in ms.'),
  allowedOrigins: z
    .array(originText)
    .default([])
    .describe('Origins other than baseUrl\'s that redirects, next links, Link headers and stream URLs may lead to; they are read WITHOUT credentials. Any other origin, or a step from https to http, is refused (FERRY_ORIGIN_REFUSED).'),
  trustedOrigins: z
    .array(originText)
    .default([])
    .describe('Origins that get the credentials too (auth, headers), like baseUrl\'s own. Only list origins the credentials are meant for.'),
  maxResponseBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024)
    .describe('Cap on one answer\'s body after decompression, in bytes (default 64 MiB); a larger answer, or a Content-Length above it, is FERRY_SOURCE_RESPONSE_TOO_LARGE.'),
  streams: z.array(streamOption).min(1).optional().describe('Several streams (parents and children); `stream` names the one the sync reads.'),
  stream: z.string().min(1).optional().describe('The stream this sync reads; required when `streams` has more than one.'),
  name: z.string().min(1).optional().describe('Name of the single top-level stream.'),
  path: streamFields.path.optional(),
  method: z.enum(['GET', 'POST']).optional().describe('HTTP method of the requests. Default: GET.'),
  body: streamFields.body,
  params: streamFields.params,
  recordSelector: selectorText.optional().describe('Where the records are in a response. `$` is the whole body (an array, or one object). Default: $.'),
  primaryKey: streamFields.primaryKey,
  pagination: paginationOption.optional().describe('How to fetch the next page: none, cursor, nextLink, linkHeader, page or offset. Default: none.'),
  incremental: streamFields.incremental,
  maxPages: streamFields.maxPages,
});

const SINGLE_STREAM_KEYS = ['name', 'path', 'method', 'body', 'params', 'recordSelector', 'primaryKey', 'pagination', 'incremental', 'maxPages'] as const;

export type StreamOption = z.output<typeof streamOption>;

/** The normalised options `read()` and `discover()` receive. */
export interface HttpOptions {
  baseUrl: string;
  headers: Record<string, string>;
  auth?: AuthOption;
  maxRequestsPerSecond?: number;
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  timeoutMs: number;
  allowedOrigins: string[];
  trustedOrigins: string[];
  maxResponseBytes: number;
  streams: StreamOption[];
  /** Name of the stream the sync reads. */
  stream: string;
  /** The selected stream's primary key (declared to the runner by the connector's `keys`). */
  primaryKey?: string[];
}

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** Placeholder names in a path: `/accounts/{account_id}/users` → `account_id`. */
export function placeholders(path: string): string[] {
  return [...path.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

export const httpOptions = rawOptions
  .superRefine((raw, ctx) => {
    const topLevel = SINGLE_STREAM_KEYS.filter((key) => raw[key] !== undefined);
    if (raw.streams && topLevel.length > 0) {
      for (const key of topLevel) {
        ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" belongs inside a stream when \`streams\` is given` });
      }
      return;
    }
    if (!raw.streams && raw.path === undefined) {
      ctx.addIssue({ code: 'custom', path: ['path'], message: 'give the endpoint as `path` (one stream) or a `streams` list' });
      return;
    }
    if (!raw.streams) {
      if (raw.stream !== undefined && raw.stream !== (raw.name ?? raw.path)) {
        ctx.addIssue({ code: 'custom', path: ['stream'], message: `there is one stream, "${raw.name ?? raw.path}"` });
      }
      checkStream({ path: raw.path!, method: raw.method ?? 'GET', body: raw.body, pagination: raw.pagination, incremental: raw.incremental }, [], ctx, new Map());
      return;
    }
    const byName = new Map<string, StreamOption>();
    raw.streams.forEach((stream, index) => {
      if (byName.has(stream.name)) ctx.addIssue({ code: 'custom', path: ['streams', index, 'name'], message: `stream "${stream.name}" is declared twice` });
      byName.set(stream.name, stream);
    });
    raw.streams.forEach((stream, index) => checkStream(stream, ['streams', index], ctx, byName));
    const names = [...byName.keys()];
    if (raw.stream === undefined && names.length > 1) {
      ctx.addIssue({ code: 'custom', path: ['stream'], message: `name the stream this sync reads: one of ${names.join(', ')}` });
    } else if (raw.stream !== undefined && !byName.has(raw.stream)) {
      ctx.addIssue({ code: 'custom', path: ['stream'], message: `no stream "${raw.stream}"; streams are ${names.join(', ')}` });
    }
  })
  .transform((raw): HttpOptions => {
    const streams: StreamOption[] = raw.streams ?? [
      {
        name: raw.name ?? raw.path!,
        path: raw.path!,
        method: raw.method ?? 'GET',
        ...(raw.body ? { body: raw.body } : {}),
        ...(raw.params ? { params: raw.params } : {}),
        recordSelector: raw.recordSelector ?? '$',
        ...(raw.primaryKey ? { primaryKey: raw.primaryKey } : {}),
        pagination: raw.pagination ?? { type: 'none' },
        ...(raw.incremental ? { incremental: raw.incremental } : {}),
        ...(raw.maxPages !== undefined ? { maxPages: raw.maxPages } : {}),
        includeParentKey: false,
      },
    ];
    const stream = raw.stream ?? streams[0]!.name;
    const primaryKey = streams.find((candidate) => candidate.name === stream)?.primaryKey;
    return {
      baseUrl: raw.baseUrl,
      headers: raw.headers ?? {},
      ...(raw.auth ? { auth: raw.auth } : {}),
      ...(raw.maxRequestsPerSecond !== undefined ? { maxRequestsPerSecond: raw.maxRequestsPerSecond } : {}),
      retry: raw.retry,
      timeoutMs: raw.timeoutMs,
      allowedOrigins: raw.allowedOrigins,
      trustedOrigins: raw.trustedOrigins,
      maxResponseBytes: raw.maxResponseBytes,
      streams,
      stream,
      ...(primaryKey ? { primaryKey } : {}),
    };
  });

interface CheckedStream {
  path: string;
  method: 'GET' | 'POST';
  body?: Record<string, unknown> | undefined;
  pagination?: PaginationOption | undefined;
  incremental?: IncrementalOption | undefined;
  parent?: StreamOption['parent'];
  name?: string;
}

function checkStream(stream: CheckedStream, at: (string | number)[], ctx: z.RefinementCtx, byName: Map<string, StreamOption>): void {
  if (stream.body !== undefined && stream.method !== 'POST') {
    ctx.addIssue({ code: 'custom', path: [...at, 'body'], message: 'a body is only sent with `method: POST`' });
  }
  const usesBody = (stream.pagination && 'in' in stream.pagination && stream.pagination.in === 'body') || stream.incremental?.in === 'body';
  if (usesBody && stream.method !== 'POST') {
    ctx.addIssue({ code: 'custom', path: at, message: '`in: body` needs `method: POST`' });
  }
  const bound = new Set<string>();
  const chain = new Set<string>(stream.name ? [stream.name] : []);
  for (let parent = stream.parent; parent; ) {
    if (chain.has(parent.stream)) {
      ctx.addIssue({ code: 'custom', path: [...at, 'parent', 'stream'], message: `parent streams form a cycle through "${parent.stream}"` });
      return;
    }
    chain.add(parent.stream);
    bound.add(parent.as);
    const next = byName.get(parent.stream);
    if (!next) {
      if (parent === stream.parent) {
        ctx.addIssue({ code: 'custom', path: [...at, 'parent', 'stream'], message: `no stream "${parent.stream}"; streams are ${[...byName.keys()].join(', ')}` });
      }
      return;
    }
    parent = next.parent;
  }
  for (const name of placeholders(stream.path)) {
    if (!bound.has(name)) {
      ctx.addIssue({
        code: 'custom',
        path: [...at, 'path'],
        message: `placeholder {${name}} is not bound: add parent: { stream: <name>, key: <field>, as: ${name} }`,
      });
    }
  }
}
