/**
 * The built-in `http` source: a declarative REST API reader configured in
 * YAML (endpoints, record selectors, pagination, auth, incremental
 * parameters, parent/child streams). See docs/http-connector.md.
 */
import {
  abortedError,
  defineSource,
  systemClock,
  type Clock,
  type DiscoveredStream,
  type ReadContext,
  type RecordOrigin,
  type SourceDefinition,
  type SourceRecord,
} from '../../../src/sdk/index.js';
import { createCursorFilter, cursorOf, recordKey } from '../_shared/incremental.js';
import { cursorCandidates, FieldTypeInference } from '../_shared/infer.js';
import type { ApiClient } from './client.js';
import { incrementalParam } from './incremental.js';
import { httpOptions, type HttpOptions } from './options.js';
import { readStream, streamByName, type ReadScope } from './read.js';
import { fieldValue } from './selector.js';
import { createSession } from './session.js';
import type { FetchFunction } from '../../../src/sdk/index.js';

export { httpOptions, type HttpOptions } from './options.js';
export type { Clock } from '../../../src/sdk/index.js';

/** What tests (and embedders) may replace. */
export interface HttpSourceDeps {
  /** Time and waiting (rate limiting, backoff, token expiry). @default the system clock */
  clock?: Clock;
  /** Pacing of the adaptive request control (rate and round trips): a test's virtual clock. @default the monotonic clock */
  pacingClock?: Clock;
  /** @default globalThis.fetch, looked up per request */
  fetch?: FetchFunction;
  /** Jitter source for backoff. @default Math.random */
  random?: () => number;
}

/** Build the `http` source; the default export is `createHttpSource()`. */
export function createHttpSource(deps: HttpSourceDeps = {}): SourceDefinition<typeof httpOptions> {
  const sessions = new WeakMap<HttpOptions, ApiClient>();
  const sessionDeps = {
    clock: deps.clock ?? systemClock,
    ...(deps.pacingClock ? { pacingClock: deps.pacingClock } : {}),
    fetch: () => deps.fetch ?? ((input: string, init: RequestInit) => globalThis.fetch(input, init)),
    ...(deps.random ? { random: deps.random } : {}),
  };
  const session = (options: HttpOptions): ApiClient => {
    let client = sessions.get(options);
    if (!client) {
      client = createSession(options, sessionDeps);
      sessions.set(options, client);
    }
    return client;
  };
  const scopeOf = (ctx: { options: HttpOptions; signal: AbortSignal; logger: ReadScope['logger']; syncName: string }): ReadScope => ({
    client: session(ctx.options),
    options: ctx.options,
    signal: ctx.signal,
    logger: ctx.logger,
    syncName: ctx.syncName,
  });

  return defineSource({
    name: 'http',
    options: httpOptions,
    keys: (options) => (options.primaryKey ? { primaryKey: options.primaryKey } : {}),
    example: {
      baseUrl: 'https://api.example.com/v2',
      auth: { type: 'bearer', token: '${API_TOKEN}' },
      path: '/tickets',
      recordSelector: '$.data',
      primaryKey: 'id',
      pagination: { type: 'cursor', cursorPath: '$.meta.next_cursor', param: 'cursor' },
      incremental: { param: 'updated_since' },
    },

    async check(ctx) {
      // One request: the first page of the first stream that needs no parent.
      const root = ctx.options.streams.find((stream) => !stream.parent) ?? ctx.options.streams[0]!;
      const records = readStream(scopeOf(ctx), root, { firstPageOnly: true, parentLimit: 1 });
      await records.next();
      await records.return(undefined);
    },

    discover: async (ctx) => discoverStreams(scopeOf(ctx), ctx.options.streams),

    async *read(ctx): AsyncGenerator<SourceRecord> {
      yield* readRecords(scopeOf(ctx), ctx);
    },
  });
}

export default createHttpSource();

/** One stream per configured stream, typed from its first page. */
async function discoverStreams(scope: ReadScope, streams: HttpOptions['streams']): Promise<DiscoveredStream[]> {
  const discovered: DiscoveredStream[] = [];
  for (const stream of streams) {
    const inference = new FieldTypeInference(false);
    for (const key of stream.primaryKey ?? []) inference.declare(key);
    if (stream.parent && stream.includeParentKey) inference.declare(stream.parent.as);
    for await (const record of readStream(scope, stream, { firstPageOnly: true, parentLimit: 1 })) inference.observe(record.data);
    const fields = inference.fields();
    discovered.push({
      name: stream.name,
      fields,
      ...(stream.primaryKey ? { primaryKey: stream.primaryKey } : {}),
      cursorCandidates: cursorCandidates(fields),
    });
  }
  return discovered;
}

/** The records of the chosen stream, from the stored cursor on when incremental. */
async function* readRecords(scope: ReadScope, ctx: ReadContext<HttpOptions>): AsyncGenerator<SourceRecord> {
  const { options, signal } = ctx;
  const stream = streamByName(options, options.stream);
  const primaryKey = stream.primaryKey ?? ctx.primaryKey;
  const incremental = ctx.incremental;
  const filter = incremental ? createCursorFilter(incremental) : undefined;
  const sent = stream.incremental ? incrementalParam(stream.incremental, incremental) : undefined;
  const extra = stream.incremental && sent !== undefined ? { name: stream.incremental.param, value: sent, in: stream.incremental.in } : undefined;
  if (extra) ctx.logger.debug({ stream: stream.name, [extra.name]: sent }, 'reading from the stored cursor');
  for await (const record of readStream(scope, stream, extra ? { extra } : {})) {
    if (signal.aborted) throw abortedError(signal, `reading stream ${stream.name}`);
    const key = recordKey(record.data, primaryKey);
    const origin: RecordOrigin = { stream: stream.name, url: record.url };
    if (key !== undefined) origin.key = key;
    if (!filter || !incremental) {
      yield { data: record.data, origin };
      continue;
    }
    // The API may answer >= (or ignore the parameter): drop what was already delivered.
    const cursor = cursorOf(fieldValue(record.data, incremental.cursorField) as Parameters<typeof cursorOf>[0]);
    if (filter.isNew(cursor, key)) yield { data: record.data, origin, cursor };
  }
}
