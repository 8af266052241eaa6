/**
 * The built-in `service` source: the service's own read side (conversations,
 * messages, rows, documents, deals, accounts) as records, so one organization
 * or deployment can be copied or transformed into another through the same
 * runner, mapping and ledger as any other source.
 */
import { z } from 'zod';
import {
  FIELD_TYPES,
  FerryError,
  defineSource,
  type DiscoveredField,
  type DiscoveredStream,
  type FieldType,
  type ReadContext,
  type SourceData,
  type SourceRecord,
  SERVICE_RESOURCES as RESOURCES,
  type ServiceResource as ResourceSpec,
} from '../../../src/sdk/index.js';
import { createCursorFilter, recordKey } from '../_shared/incremental.js';
import { FieldTypeInference } from '../_shared/infer.js';
import { HttpStatusError, ServiceHttp } from './http.js';
import { fetchListPage, itemSchema, listItems, parseAnswer } from './list.js';
import { serviceOptions, type ServiceOptions } from './options.js';

/** Items whose detail discover() fetches when `details: true`. */
const DISCOVER_DETAILS = 5;
/** Pushed-down lower bounds start this much early, in case the service's bound is exclusive. */
const BOUND_SLACK_MS = 1000;

const healthAnswer = z.object({ scopes: z.array(z.string()).default([]) });

function httpOf(options: ServiceOptions): ServiceHttp {
  return new ServiceHttp(options.baseUrl, options.apiKey, { maxAttempts: options.maxAttempts, timeoutMs: options.timeoutMs });
}

function idOf(data: SourceData, spec: ResourceSpec): string | undefined {
  const id = data[spec.idField];
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** The list query: user filters, page size, and on incremental runs the pushed-down lower bound. */
function listQuery(options: ServiceOptions, spec: ResourceSpec, ctx: ReadContext<ServiceOptions>): Record<string, string | number | boolean> {
  const query: Record<string, string | number | boolean> = { ...options.filters, limit: options.pageSize };
  const incremental = ctx.incremental;
  const param = incremental ? spec.lowerBound[incremental.cursorField] : undefined;
  if (!options.pushDown || !incremental?.after || !param || typeof incremental.after.value !== 'string') return query;
  const at = Date.parse(incremental.after.value);
  if (Number.isNaN(at)) return query;
  const bound = new Date(at - (incremental.lag ?? 0) * 1000 - BOUND_SLACK_MS);
  const given = query[param];
  // A user's own, later bound wins: both must hold.
  if (typeof given === 'string' && Date.parse(given) > bound.getTime()) return query;
  query[param] = bound.toISOString();
  return query;
}

/** An item's detail, or undefined (with a warning) when it vanished or its source has no detail. */
async function detailOf(http: ServiceHttp, spec: ResourceSpec, id: string, ctx: ReadContext<ServiceOptions>): Promise<SourceData | undefined> {
  try {
    const body = await http.getJson(`${spec.path}/${encodeURIComponent(id)}`, {}, ctx.signal);
    return parseAnswer(itemSchema, body, `GET ${spec.path}/${id}`);
  } catch (error) {
    if (error instanceof HttpStatusError && (error.status === 404 || error.status === 400)) {
      ctx.logger.warn({ resource: ctx.options.resource, id, status: error.status }, `${spec.path}/${id}: no detail (${error.status}); item skipped`);
      return undefined;
    }
    throw error;
  }
}

function discoveredFields(samples: readonly SourceData[], spec: ResourceSpec): DiscoveredField[] {
  const inference = new FieldTypeInference(false);
  inference.declare(spec.idField);
  for (const sample of samples) inference.observe(sample);
  const fields = inference.fields().map((field) =>
    // Time fields are ISO text when present and null otherwise; say so even when the sample is all null.
    spec.timeFields.includes(field.name) && field.type === 'string' ? { ...field, type: 'datetime' as const } : field,
  );
  for (const name of spec.timeFields) {
    if (!fields.some((field) => field.name === name)) fields.push({ name, type: 'datetime', nullable: true });
  }
  // Row field values sit under fields.<name>.value with their declared type: offer them as paths for the mapping.
  const rowFields = new Map<string, FieldType>();
  for (const sample of samples) {
    const values = sample.fields;
    if (!values || typeof values !== 'object' || Array.isArray(values)) continue;
    for (const [name, value] of Object.entries(values)) {
      const type = value && typeof value === 'object' && !Array.isArray(value) ? (value as { fieldType?: unknown }).fieldType : undefined;
      if (typeof type === 'string' && (FIELD_TYPES as readonly string[]).includes(type) && !rowFields.has(name)) rowFields.set(name, type as FieldType);
    }
  }
  for (const [name, type] of rowFields) fields.push({ name: `fields.${name}.value`, type, nullable: true });
  return fields;
}

export default defineSource({
  name: 'service',
  options: serviceOptions,
  example: { baseUrl: 'https://api.example.com', apiKey: '${SOURCE_API_KEY}', resource: 'rows', filters: { objectTypeId: '3f0c8a52-6f3e-4b8e-9a43-2d7c1e5b9f10' } },

  async check(ctx) {
    const http = httpOf(ctx.options);
    const health = parseAnswer(healthAnswer, await http.getJson('/v1/health', {}, ctx.signal), 'GET /v1/health');
    if (!health.scopes.includes('read')) {
      throw new FerryError('FERRY_SOURCE_AUTH', `the source apiKey for ${http.baseUrl} lacks the read scope (it has: ${health.scopes.join(', ') || 'none'})`, {
        where: `sync ${ctx.syncName}`,
        hint: 'create a key with the Export (read) permission in the source organization',
      });
    }
  },

  async discover(ctx): Promise<DiscoveredStream[]> {
    const { options } = ctx;
    const spec = RESOURCES[options.resource];
    const http = httpOf(options);
    const samples = (await fetchListPage(http, spec, { ...options.filters, limit: options.pageSize }, ctx.signal)).items as SourceData[];
    let observed = samples;
    if (options.details) {
      observed = [];
      for (const data of samples.slice(0, DISCOVER_DETAILS)) {
        const id = idOf(data, spec);
        const detail = id === undefined ? undefined : await detailOf(http, spec, id, { ...ctx, incremental: undefined });
        if (detail) observed.push(detail);
      }
    }
    const fields = discoveredFields(observed, spec);
    return [
      {
        name: options.resource,
        fields,
        primaryKey: [spec.idField],
        cursorCandidates: spec.timeFields.filter((name) => fields.some((field) => field.name === name)),
      },
    ];
  },

  async *read(ctx): AsyncGenerator<SourceRecord> {
    const { options } = ctx;
    const spec = RESOURCES[options.resource];
    const http = httpOf(options);
    const filter = ctx.incremental ? createCursorFilter(ctx.incremental) : undefined;
    /** Whether a listed item is older than the stored position (known only when the list carries the cursor field). */
    const old = (listed: SourceData, id: string) =>
      filter !== undefined && ctx.incremental!.cursorField in listed && !filter.isNew(filter.cursorOf(listed), recordKey(listed, ctx.primaryKey) ?? id);
    // Details are fetched behind the pages, `concurrency` at once; old items are dropped before theirs is fetched.
    const detail = options.details
      ? async (listed: SourceData): Promise<SourceData | undefined> => {
          const id = idOf(listed, spec);
          if (id === undefined || old(listed, id)) return listed;
          return detailOf(http, spec, id, ctx);
        }
      : undefined;
    for await (const data of listItems(http, spec, listQuery(options, spec, ctx), ctx.signal, options.concurrency, detail)) {
      const id = idOf(data, spec);
      if (id === undefined) {
        throw new FerryError('FERRY_SOURCE_READ_FAILED', `GET ${spec.path}: an item has no ${spec.idField}`, { where: `sync ${ctx.syncName}` });
      }
      const origin = { stream: options.resource, url: http.url(`${spec.path}/${encodeURIComponent(id)}`), key: id };
      if (!filter) {
        yield { data, origin };
        continue;
      }
      const cursor = filter.cursorOf(data);
      if (!filter.isNew(cursor, recordKey(data, ctx.primaryKey) ?? id)) continue;
      yield { data, origin, cursor };
    }
  },
});
