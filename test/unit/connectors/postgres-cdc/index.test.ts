/**
 * `ferry check` of a postgres-cdc source against a server that is not set
 * up for logical replication. The local PostgreSQL the e2e tests use has
 * wal_level = logical (and this cannot be changed without a restart), so
 * the server here is a stand-in `pg.Client` answering the catalog questions
 * the check asks; test/e2e/postgres-cdc.test.ts covers the real server.
 */
import type * as Pg from 'pg';
import { describe, expect, it, vi } from 'vitest';

const server = { walLevel: 'replica', canReplicate: true, queries: [] as string[] };

vi.mock('pg', async (importOriginal) => {
  const actual = await importOriginal<typeof Pg>();
  class StandInClient {
    on(): this {
      return this;
    }
    async connect(): Promise<void> {}
    async end(): Promise<void> {}
    async query(text: string | { text: string }): Promise<{ rows: unknown[]; rowCount: number }> {
      const sql = typeof text === 'string' ? text : text.text;
      server.queries.push(sql);
      if (/SHOW wal_level/.test(sql)) return { rows: [{ wal_level: server.walLevel }], rowCount: 1 };
      if (/rolreplication/.test(sql)) return { rows: [{ ok: server.canReplicate }], rowCount: 1 };
      throw new Error(`the stand-in server was not asked to answer: ${sql}`);
    }
  }
  return { ...actual, default: { ...actual.default, Client: StandInClient } };
});

const { default: source } = await import('../../../../connectors/sources/postgres-cdc/index.js');

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const ctx = () => ({
  options: source.options.parse({ url: 'postgres://ferry:secret@127.0.0.1:5432/crm', table: 'deals' }),
  baseDir: process.cwd(),
  syncName: 'deals-cdc',
  logger: silent,
  signal: new AbortController().signal,
});

describe('postgres-cdc check', () => {
  it('refuses a server whose wal_level is not logical, saying how to set it', async () => {
    server.walLevel = 'replica';
    const failure = await source.check!(ctx()).then(
      () => undefined,
      (error: unknown) => error as { code: string; message: string; hint?: string },
    );
    expect(failure?.code).toBe('FERRY_CONFIG_INVALID');
    expect(failure?.message).toMatch(/wal_level is replica; logical replication needs wal_level = logical/);
    expect(failure?.hint).toMatch(/ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL/);
    expect(failure?.hint).toMatch(/rds\.logical_replication/);
    expect(failure?.message).not.toContain('secret');
  });

  it('refuses a role without the REPLICATION right once wal_level is logical', async () => {
    server.walLevel = 'logical';
    server.canReplicate = false;
    await expect(source.check!(ctx())).rejects.toMatchObject({ code: 'FERRY_SOURCE_AUTH', message: expect.stringMatching(/lacks the REPLICATION attribute/) as unknown });
  });
});
