/**
 * The two connections a capture uses: an ordinary one (catalog, snapshot,
 * slot health) and a replication one (`replication=database`: the slot's
 * creation with its exported snapshot, then START_REPLICATION as COPY BOTH).
 * Both run with the same session settings, so a value reads the same from
 * the snapshot and from the WAL stream (the same text, the same parsers:
 * an unchanged row costs no write at the handover).
 */
import pg from 'pg';
import { isFerryError, passwordOf, redactUrl } from '../../../src/sdk/index.js';
import { describeFailure, sqlError, type ErrorScope } from '../_sql/errors.js';
import { tlsSettings } from '../_sql/tls.js';
import { postgresDriver } from '../postgres/index.js';
import { typeParsers } from '../postgres/type-parsers.js';
import type { PostgresCdcOptions } from './options.js';

/** Timestamps as UTC text with every fractional digit, dates as YYYY-MM-DD: the plain postgres source's settings. */
const SESSION = '-c TimeZone=UTC -c DateStyle=ISO,YMD -c IntervalStyle=iso_8601 -c extra_float_digits=1';

export function scopeOf(ctx: { options: PostgresCdcOptions; syncName: string }, object?: string): ErrorScope {
  return {
    syncName: ctx.syncName,
    database: 'postgres',
    target: redactUrl(ctx.options.url),
    secrets: [passwordOf(ctx.options.url)],
    ...(object ? { object } : {}),
  };
}

/** A driver error as a FerryError naming the sync and the database, password masked. */
export function cdcError(ctx: { options: PostgresCdcOptions; syncName: string }, error: unknown, object?: string): Error {
  if (isFerryError(error)) return error;
  const scope = scopeOf(ctx, object);
  const kind = postgresDriver.classify(error);
  return sqlError(kind, scope, describeFailure(kind, scope), error);
}

export async function connect(ctx: { options: PostgresCdcOptions; baseDir: string; syncName: string }, replication: boolean): Promise<pg.Client> {
  const ssl = tlsSettings(ctx.options.ssl, ctx.baseDir);
  const client = new pg.Client({
    connectionString: ctx.options.url,
    ...(ssl !== undefined ? { ssl } : {}),
    ...(replication ? { replication: 'database' } : {}),
    options: SESSION,
    application_name: replication ? `ferry-cdc:${ctx.syncName}` : 'ferry',
    connectionTimeoutMillis: 15_000,
    types: typeParsers,
  });
  // A dropped connection also fails what is pending on it, which is where it is reported.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw cdcError(ctx, error);
  }
  return client;
}
