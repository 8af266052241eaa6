/**
 * Reading streams: build each endpoint's first request, walk its pages,
 * and for a child stream do that once per record of its parent, with the
 * parent's key substituted into the path.
 */
import { isRecord, type ConnectorLogger, type SourceData } from '../../../src/sdk/index.js';
import type { ApiClient } from './client.js';
import { placeholders, type HttpOptions, type StreamOption } from './options.js';
import { paginate, type StreamRequest } from './paginate.js';
import { fieldValue, parseSelector } from './selector.js';

export interface ReadScope {
  client: ApiClient;
  options: HttpOptions;
  signal: AbortSignal;
  logger: ConnectorLogger;
  syncName: string;
}

export interface StreamRecord {
  data: SourceData;
  /** Redacted URL of the page the record came from. */
  url: string;
  /** Placeholder values this record was fetched with (passed on to children). */
  bindings: Readonly<Record<string, string>>;
}

export interface StreamReadOptions {
  /** Extra parameters for this stream's requests only (the incremental one). */
  extra?: { name: string; value: string; in: 'query' | 'body' };
  /** Stop after the first page (of each parent record): discover() and check(). */
  firstPageOnly?: boolean;
  /** Read at most this many parent records: discover() samples one. */
  parentLimit?: number;
}

export function streamByName(options: HttpOptions, name: string): StreamOption {
  const stream = options.streams.find((candidate) => candidate.name === name);
  // The options schema guarantees every referenced name exists.
  if (!stream) throw new Error(`no stream "${name}"`);
  return stream;
}

/** The records of `stream`, in the API's order. */
export async function* readStream(scope: ReadScope, stream: StreamOption, read: StreamReadOptions = {}): AsyncGenerator<StreamRecord> {
  if (!stream.parent) {
    yield* readEndpoint(scope, stream, {}, read);
    return;
  }
  const { parent } = stream;
  let taken = 0;
  let warned = false;
  const parentRead = read.parentLimit === undefined ? {} : { firstPageOnly: true, parentLimit: read.parentLimit };
  for await (const record of readStream(scope, streamByName(scope.options, parent.stream), parentRead)) {
    const value = fieldValue(record.data, parent.key);
    if (value === undefined || value === null || value === '') {
      if (!warned) scope.logger.warn({ stream: stream.name, parent: parent.stream, key: parent.key, url: record.url }, 'a parent record has no key value; skipping it');
      warned = true;
      continue;
    }
    const bindings = { ...record.bindings, [parent.as]: typeof value === 'object' ? JSON.stringify(value) : String(value) };
    for await (const child of readEndpoint(scope, stream, bindings, read)) {
      yield stream.includeParentKey ? { ...child, data: { ...child.data, [parent.as]: value as SourceData[string] } } : child;
    }
    taken += 1;
    if (read.parentLimit !== undefined && taken >= read.parentLimit) return;
  }
}

async function* readEndpoint(
  scope: ReadScope,
  stream: StreamOption,
  bindings: Record<string, string>,
  read: StreamReadOptions,
): AsyncGenerator<StreamRecord> {
  const context = { signal: scope.signal, logger: scope.logger, where: `sync ${scope.syncName}, stream ${stream.name}` };
  const pages = paginate(scope.client, firstRequest(scope.options, stream, bindings, read.extra), stream.pagination, parseSelector(stream.recordSelector), context, stream.maxPages);
  for await (const page of pages) {
    for (const item of page.records) yield { data: toData(item), url: page.url, bindings };
    if (read.firstPageOnly) return;
  }
}

function firstRequest(options: HttpOptions, stream: StreamOption, bindings: Record<string, string>, extra: StreamReadOptions['extra']): StreamRequest {
  let path = stream.path;
  for (const name of placeholders(path)) path = path.replaceAll(`{${name}}`, encodeURIComponent(bindings[name] ?? ''));
  const url = /^https?:\/\//i.test(path) ? new URL(path) : new URL(`${options.baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  for (const [name, value] of Object.entries(stream.params ?? {})) url.searchParams.set(name, value);
  let body = stream.body;
  if (extra?.in === 'body') body = { ...(body ?? {}), [extra.name]: extra.value };
  else if (extra) url.searchParams.set(extra.name, extra.value);
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries({ ...options.headers, ...stream.headers })) headers[name.toLowerCase()] = value;
  if (stream.method === 'POST') headers['content-type'] ??= 'application/json';
  return { method: stream.method, url, headers, ...(stream.method === 'POST' ? { body: body ?? {} } : {}) };
}

/**
 * JSON.parse yields only strings, numbers, booleans, null, arrays and
 * objects, all of which are SourceValues. A record that is not an object
 * (an API listing bare ids) becomes `{ value }`.
 */
function toData(item: unknown): SourceData {
  return (isRecord(item) ? item : { value: item }) as SourceData;
}
