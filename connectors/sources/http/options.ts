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
const placement = z.enum(['query', 'body']).default('query');

export const authOption = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('bearer'),
    /** Sent as `Authorization: Bearer <token>`. */
    token: z.string().min(1),
  }),
  z.strictObject({
    type: z.literal('basic'),
    username: z.string(),
    password: z.string(),
  }),
  z.strictObject({
    type: z.literal('apiKey'),
    /** @default header */
    in: z.enum(['header', 'query']).default('header'),
    /** Header or query-parameter name. @example X-Api-Key */
    name: z.string().min(1),
    value: z.string().min(1),
  }),
  z.strictObject({
    type: z.literal('oauth2'),
    /** Token endpoint of the client-credentials grant. */
    tokenUrl: z.url({ protocol: /^https?$/, message: 'tokenUrl must be an http(s) URL' }),
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    scope: z.string().optional(),
    audience: z.string().optional(),
    /** How the client authenticates to the token endpoint: form fields, or HTTP Basic. @default body */
    clientAuth: z.enum(['body', 'basic']).default('body'),
    /** Renew the token this many seconds before `expires_in` runs out. @default 60 */
    expiryMarginSeconds: z.number().nonnegative().default(60),
  }),
], { error: (issue) => (issue.code === 'invalid_union' ? 'auth.type must be one of bearer, basic, apiKey, oauth2' : undefined) });
export type AuthOption = z.output<typeof authOption>;

export const paginationOption = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({
    type: z.literal('cursor'),
    /** Where the next cursor is in the response body. @example $.meta.next_cursor */
    cursorPath: selectorText,
    /** The request parameter that carries it. @default cursor */
    param: z.string().min(1).default('cursor'),
    /** A boolean in the body; a false value ends the read. @example $.meta.has_more */
    stopPath: selectorText.optional(),
    in: placement,
  }),
  z.strictObject({
    type: z.literal('nextLink'),
    /** Where the next page's URL (absolute or relative) is in the body. @example $.links.next */
    path: selectorText,
  }),
  z.strictObject({ type: z.literal('linkHeader') }),
  z.strictObject({
    type: z.literal('page'),
    /** @default page */
    param: z.string().min(1).default('page'),
    /** Number of the first page. @default 1 */
    start: z.number().int().default(1),
    /** The request parameter for the page size; sent only when `size` is set. @example per_page */
    sizeParam: z.string().min(1).optional(),
    /** Page size; a page shorter than this is the last one. */
    size: z.number().int().positive().optional(),
    in: placement,
  }),
  z.strictObject({
    type: z.literal('offset'),
    /** @default offset */
    param: z.string().min(1).default('offset'),
    /** @default limit */
    limitParam: z.string().min(1).default('limit'),
    /** @default 100 */
    limit: z.number().int().positive().default(100),
    in: placement,
  }),
], { error: (issue) => (issue.code === 'invalid_union' ? 'pagination.type must be one of none, cursor, nextLink, linkHeader, page, offset' : undefined) });
export type PaginationOption = z.output<typeof paginationOption>;

export const incrementalOption = z.strictObject({
  /** Request parameter that receives the stored cursor. @example updated_since */
  param: z.string().min(1),
  /** How the cursor is written into the parameter. @default raw (exactly as stored) */
  format: z.enum(['raw', 'iso', 'unix', 'unix_ms']).default('raw'),
  /** Sent when there is no stored cursor yet (first or full-refresh run). */
  start: z.union([z.string().min(1), z.number()]).optional(),
  in: placement,
});
export type IncrementalOption = z.output<typeof incrementalOption>;

const parentOption = z.strictObject({
  /** Name of the parent stream. */
  stream: z.string().min(1),
  /** Field of each parent record whose value is substituted (dot path allowed). @example id */
  key: z.string().min(1),
  /** Placeholder name in the child's `path`: `{account_id}`. */
  as: z.string().regex(/^[A-Za-z_][\w-]*$/, 'a placeholder name: letters, digits, _ and -'),
});

/** Everything that describes one stream; at the top level these keys describe the only stream. */
const streamFields = {
  /** Path below `baseUrl` (or an absolute URL), with `{placeholders}` bound by `parent`. */
  path: z.string().min(1),
  /** @default GET */
  method: z.enum(['GET', 'POST']).default('GET'),
  /** JSON body of a POST request. */
  body: z.record(z.string(), z.unknown()).optional(),
  /** Query parameters sent with every request of the stream. */
  params: textMap.optional(),
  /** Where the records are in a response. `$` is the whole body (an array, or one object). @default $ */
  recordSelector: selectorText.default('$'),
  /** Field(s) identifying a record: the origin key and the incremental tie-breaker. */
  primaryKey: keyList.optional(),
  /** @default { type: none } */
  pagination: paginationOption.default({ type: 'none' }),
  incremental: incrementalOption.optional(),
};

const streamOption = z.strictObject({
  /** The stream's name: what `stream:` and `parent.stream` refer to. */
  name: z.string().regex(/^[A-Za-z0-9][\w.-]*$/, 'a stream name: letters, digits, _, - and .'),
  ...streamFields,
  /** Headers of this stream only (on top of the source's). */
  headers: textMap.optional(),
  /** Read this stream once per record of another stream. */
  parent: parentOption.optional(),
  /** Add the parent key to every record, under the `parent.as` name. @default false */
  includeParentKey: z.boolean().default(false),
});

const retryOption = z.strictObject({
  /** Attempts in total, the first included. @default 5 */
  maxAttempts: z.number().int().min(1).max(20).default(5),
  /** First backoff window in ms (full jitter, doubling). @default 500 */
  baseDelayMs: z.number().int().min(0).default(500),
  /** Longest single wait, Retry-After included, in ms. @default 60000 */
  maxDelayMs: z.number().int().min(0).default(60_000),
});

const rawOptions = z.strictObject({
  /** Root URL of the API; stream paths resolve against it. @example https://api.example.com/v2 */
  baseUrl: z.url({ protocol: /^https?$/, message: 'baseUrl must be an http(s) URL' }),
  /** Headers sent with every request. */
  headers: textMap.optional(),
  auth: authOption.optional(),
  /** Requests per second this source may send (a token bucket); unset means no limit. */
  maxRequestsPerSecond: z.number().positive().optional(),
  /** @default { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 60000 } */
  retry: retryOption.default({ maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 60_000 }),
  /** Per-request timeout, response body included, in ms. @default 30000 */
  timeoutMs: z.number().int().positive().default(30_000),
  /** Several streams (parents and children); `stream` names the one the sync reads. */
  streams: z.array(streamOption).min(1).optional(),
  /** The stream this sync reads; required when `streams` has more than one. */
  stream: z.string().min(1).optional(),
  /** Name of the single top-level stream. @default the path */
  name: z.string().min(1).optional(),
  path: streamFields.path.optional(),
  method: z.enum(['GET', 'POST']).optional(),
  body: streamFields.body,
  params: streamFields.params,
  recordSelector: selectorText.optional(),
  primaryKey: streamFields.primaryKey,
  pagination: paginationOption.optional(),
  incremental: streamFields.incremental,
});

const SINGLE_STREAM_KEYS = ['name', 'path', 'method', 'body', 'params', 'recordSelector', 'primaryKey', 'pagination', 'incremental'] as const;

export type StreamOption = z.output<typeof streamOption>;

/** The normalised options `read()` and `discover()` receive. */
export interface HttpOptions {
  baseUrl: string;
  headers: Record<string, string>;
  auth?: AuthOption;
  maxRequestsPerSecond?: number;
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  timeoutMs: number;
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
