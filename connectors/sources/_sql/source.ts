/**
 * The shared implementation of the SQL sources: check(), discover() and a
 * streaming read() with keyset-incremental reads, given a driver. Written only
 * against src/sdk, like any plugin.
 */
import type { z } from 'zod';
import {
  defineSource,
  FerryError,
  isFerryError,
  type ConnectorContext,
  type DiscoveredStream,
  type ReadContext,
  type ReadPartition,
  type RecordOrigin,
  type SourceDefinition,
  type SourceRecord,
} from '../../../src/sdk/index.js';
import { fieldTypeOf, isCursorKind, type SqlColumn } from './columns.js';
import { describeFailure, sqlError, type ErrorScope } from './errors.js';
import { validateIdentifier } from './identifiers.js';
import { keyList, type SqlReadOptions } from './options.js';
import { buildNullCount, buildRead, type ReadPlan } from './select.js';
import type { SqlDriver, SqlSession } from './session.js';
import { cursorText, keyPart } from './values.js';

/** Tables described when discover() runs without a configured table. */
const DISCOVER_MAX_TABLES = 200;

interface Resolved {
  plan: ReadPlan;
  columns: SqlColumn[];
  stream: string;
  estimatedCount?: number;
  primaryKey: string[];
}

function streamName(options: SqlReadOptions): string {
  if (options.query !== undefined) return 'query';
  return options.schema ? `${options.schema}.${options.table}` : (options.table ?? '');
}

function scopeOf<O extends SqlReadOptions>(driver: SqlDriver<O>, ctx: ConnectorContext<O>): ErrorScope {
  const object = ctx.options.table !== undefined || ctx.options.query !== undefined ? streamName(ctx.options) : undefined;
  return {
    syncName: ctx.syncName,
    database: driver.database,
    target: driver.target(ctx),
    secrets: driver.secrets(ctx),
    ...(object ? { object } : {}),
  };
}

/** Turn anything thrown into a FerryError (or the abort reason). */
function failure<O extends SqlReadOptions>(driver: SqlDriver<O>, ctx: ConnectorContext<O>, error: unknown): unknown {
  if (ctx.signal.aborted) return ctx.signal.reason;
  if (isFerryError(error)) return error;
  const kind = driver.classify(error);
  const scope = scopeOf(driver, ctx);
  return sqlError(kind, scope, describeFailure(kind, scope), error);
}

function missing(scope: ErrorScope, message: string, hint?: string): FerryError {
  return new FerryError('FERRY_SOURCE_OBJECT_MISSING', message, {
    where: `sync ${scope.syncName}`,
    hint: hint ?? 'check the names in the source options (ferry discover lists what the source has)',
    details: { database: scope.database, target: scope.target, ...(scope.object ? { object: scope.object } : {}) },
  });
}

function requireColumn(columns: readonly SqlColumn[], name: string, role: string, scope: ErrorScope): SqlColumn {
  const column = columns.find((c) => c.name === name);
  if (column) return column;
  const known = columns.map((c) => c.name).join(', ');
  throw missing(scope, `${role} column "${name}" does not exist in ${scope.object ?? 'the source'}`, `its columns are: ${known}`);
}

/**
 * Look the configured table or query up in the catalog and check every named
 * column (columns, primary key, cursor) exists, before any row is read.
 */
async function resolve<O extends SqlReadOptions>(
  driver: SqlDriver<O>,
  session: SqlSession,
  ctx: ConnectorContext<O>,
  extra: { cursorField?: string; primaryKey?: string[]; partition?: ReadPartition },
): Promise<Resolved> {
  const { options } = ctx;
  const scope = scopeOf(driver, ctx);
  const { dialect } = driver;
  let columns: SqlColumn[];
  let relation: string;
  let tableKey: string[] = [];
  let estimatedCount: number | undefined;
  if (options.query !== undefined) {
    columns = await session.describeQuery(options.query);
    relation = `(${options.query}) AS q`;
  } else if (options.table !== undefined) {
    validateIdentifier(options.table, 'table');
    if (options.schema !== undefined) validateIdentifier(options.schema, 'schema');
    const info = await session.describeTable(options.table, options.schema);
    if (!info) throw missing(scope, `table ${streamName(options)} does not exist in ${driver.database} at ${scope.target}`);
    columns = info.columns;
    tableKey = info.primaryKey;
    estimatedCount = info.estimatedCount;
    relation = options.schema !== undefined ? `${dialect.quote(options.schema)}.${dialect.quote(options.table)}` : dialect.quote(options.table);
  } else {
    throw new FerryError('FERRY_CONFIG_INVALID', `the ${driver.database} source of sync ${ctx.syncName} names no table or query`, {
      where: `sync ${ctx.syncName}`,
      hint: 'add table: <name> (or query: SELECT …) under source:',
    });
  }

  const keyNames = keyList(options.primaryKey) ?? extra.primaryKey ?? tableKey;
  const keys = keyNames.map((name) => requireColumn(columns, name, 'primary key', scope));
  if (extra.partition && keys.length === 0) {
    throw new FerryError('FERRY_CONFIG_INVALID', `sync ${ctx.syncName} is partitioned but ${scope.object ?? 'its source'} has no primary key to hash`, {
      where: `sync ${ctx.syncName}`,
      hint: 'name the key columns with primaryKey: under source:, or remove partitions:',
    });
  }
  const cursor = extra.cursorField !== undefined ? requireColumn(columns, extra.cursorField, 'cursor', scope) : undefined;
  let select: string[] = [];
  let selected = columns;
  if (options.columns !== undefined) {
    for (const name of options.columns) requireColumn(columns, name, 'selected', scope);
    // The cursor and key travel with every record, so they are read even when not listed.
    const names = [...new Set([...options.columns, ...keyNames, ...(cursor ? [cursor.name] : [])])];
    select = names;
    selected = names.map((name) => columns.find((c) => c.name === name)!);
  }
  return {
    plan: {
      relation,
      ...(options.where !== undefined && options.query === undefined ? { where: options.where } : {}),
      select,
      ...(cursor ? { cursor } : {}),
      keys,
      ...(extra.partition ? { partition: extra.partition } : {}),
    },
    columns: selected,
    stream: streamName(options),
    ...(estimatedCount !== undefined ? { estimatedCount } : {}),
    primaryKey: keyNames,
  };
}

function toStream(name: string, columns: readonly SqlColumn[], primaryKey: string[], estimatedCount?: number): DiscoveredStream {
  const fields = columns.map((column) => ({ name: column.name, type: fieldTypeOf(column.kind), sourceType: column.dbType, nullable: column.nullable }));
  return {
    name,
    fields,
    ...(primaryKey.length > 0 ? { primaryKey } : {}),
    cursorCandidates: columns.filter((column) => isCursorKind(column.kind)).map((column) => column.name),
    ...(estimatedCount !== undefined ? { estimatedCount } : {}),
  };
}

/**
 * Declare a SQL source from a driver. check() connects and verifies the table
 * and named columns; discover() reads the catalog; read() streams rows,
 * ordered by cursor then key when incremental.
 */
export function defineSqlSource<Schema extends z.ZodType<SqlReadOptions>>(spec: {
  name: string;
  options: Schema;
  example: z.input<Schema>;
  driver: SqlDriver<z.output<Schema>>;
}): SourceDefinition<Schema> {
  const { driver } = spec;
  type O = z.output<Schema>;

  return defineSource({
    name: spec.name,
    options: spec.options,
    example: spec.example,
    partitionable: true,
    keys: (options: O) => {
      const primaryKey = keyList(options.primaryKey);
      return primaryKey ? { primaryKey } : {};
    },

    async check(ctx) {
      await withSession(driver, ctx, async (session) => {
        const options: SqlReadOptions = ctx.options;
        if (options.table === undefined && options.query === undefined) {
          await session.listTables(options.schema);
          return;
        }
        await resolve(driver, session, ctx, {});
      });
    },

    async discover(ctx) {
      return withSession(driver, ctx, (session) => discoverStreams(driver, session, ctx));
    },

    read(ctx: ReadContext<O>): AsyncIterable<SourceRecord> {
      return readRows(driver, ctx);
    },
  });
}

/** Run `work` on a session of its own, closed afterwards; errors come out as the source's failures. */
async function withSession<O extends SqlReadOptions, T>(driver: SqlDriver<O>, ctx: ConnectorContext<O>, work: (session: SqlSession) => Promise<T>): Promise<T> {
  let session: SqlSession | undefined;
  try {
    session = await driver.connect(ctx);
    return await work(session);
  } catch (error) {
    throw failure(driver, ctx, error);
  } finally {
    await session?.close();
  }
}

/** The one stream of `table` or `query`, or else the first tables of the schema. */
async function discoverStreams<O extends SqlReadOptions>(driver: SqlDriver<O>, session: SqlSession, ctx: ConnectorContext<O>): Promise<DiscoveredStream[]> {
  const { options } = ctx;
  if (options.table !== undefined || options.query !== undefined) {
    const resolved = await resolve(driver, session, ctx, {});
    return [toStream(resolved.stream, resolved.columns, resolved.primaryKey, resolved.estimatedCount)];
  }
  const streams: DiscoveredStream[] = [];
  for (const table of (await session.listTables(options.schema)).slice(0, DISCOVER_MAX_TABLES)) {
    const info = await session.describeTable(table.name, table.schema);
    if (!info) continue;
    streams.push(toStream(table.schema ? `${table.schema}.${table.name}` : table.name, info.columns, info.primaryKey, info.estimatedCount));
  }
  return streams;
}

async function* readRows<O extends SqlReadOptions>(driver: SqlDriver<O>, ctx: ReadContext<O>): AsyncGenerator<SourceRecord> {
  const { options, signal, incremental } = ctx;
  if (signal.aborted) throw signal.reason;
  let session: SqlSession | undefined;
  try {
    session = await driver.connect(ctx);
    const resolved = await resolve(driver, session, ctx, {
      ...(incremental ? { cursorField: incremental.cursorField } : {}),
      ...(ctx.primaryKey ? { primaryKey: ctx.primaryKey } : {}),
      ...(ctx.partition ? { partition: ctx.partition } : {}),
    });
    const { plan } = resolved;
    if (incremental && plan.cursor && options.nullCursor === 'skip') {
      const skipped = await session.count(buildNullCount(driver.dialect, plan, plan.cursor));
      if (skipped > 0) {
        ctx.logger.warn({ skipped, cursor: plan.cursor.name, table: resolved.stream }, `${skipped} row(s) with a NULL cursor skipped (nullCursor: skip)`);
      }
    }
    const query = buildRead(
      driver.dialect,
      plan,
      incremental
        ? {
            nullCursor: options.nullCursor,
            ...(incremental.after ? { after: incremental.after } : {}),
            ...(incremental.lag !== undefined ? { lag: incremental.lag } : {}),
          }
        : undefined,
    );
    ctx.logger.debug({ sql: query.sql, mode: query.mode, parameters: query.params.length }, 'reading');
    const keyNames = plan.keys.map((key) => key.name);
    const cursorName = plan.cursor?.name;
    for await (const data of session.stream(query, resolved.columns, { fetchSize: options.fetchSize, signal })) {
      if (signal.aborted) throw signal.reason;
      const origin: RecordOrigin = { stream: resolved.stream, table: resolved.stream };
      if (keyNames.length > 0) origin.key = keyNames.map((name) => keyPart(data[name])).join('\u001f');
      yield cursorName !== undefined ? { data, origin, cursor: cursorText(data[cursorName]) } : { data, origin };
    }
  } catch (error) {
    throw failure(driver, ctx, error);
  } finally {
    await session?.close();
  }
}
