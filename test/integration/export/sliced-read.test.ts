/**
 * An export read in time windows, end to end: ferry's client against an HTTP
 * stand-in list whose bounds are inclusive or exclusive (the spec says
 * neither), many records sitting on the same instants and on window edges,
 * written into sqlite-table and counted there with better-sqlite3 itself.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { loadConfig } from '../../../src/config/index.js';
import { inspectExport, runExport, type PreparedExport } from '../../../src/export/index.js';
import { SERVICE_RESOURCES } from '../../../src/sdk/index.js';
import { openStateStore, type StateStore } from '../../../src/state/index.js';
import { ListStandIn, standInConversation } from '../../support/list-stand-in.js';
import { tempDir } from '../../unit/export/helpers.js';

const COUNT = 1500;

/** Conversations bunched on shared instants: groups of 5 at the same millisecond, the groups a second apart. */
function bunched(): Record<string, unknown>[] {
  return Array.from({ length: COUNT }, (_, i) => {
    const item = standInConversation(i);
    const start = Date.UTC(2025, 0, 1) + Math.floor(i / 5) * 1000;
    return { ...item, startTime: new Date(start).toISOString() };
  });
}

/** A stand-in list over HTTP, ferry's client to it and a state store, for one test; closed after it. */
async function withStandIn(
  bounds: 'inclusive' | 'exclusive',
  yaml: string,
  test: (setup: { dir: string; standIn: ListStandIn; client: ServiceClient; store: StateStore; prepared: PreparedExport }) => Promise<void>,
): Promise<void> {
  const dir = tempDir();
  const standIn = new ListStandIn({ items: bunched(), window: SERVICE_RESOURCES.conversations.window!, itemsKey: 'conversations', bounds, order: 'time' });
  const server = await standIn.listen('/v1/conversations');
  const client = new ServiceClient({ baseUrl: server.url, apiKey: 'sk_live_test', concurrency: 8 });
  const store = await openStateStore(`sqlite:${join(dir, 'state.db')}`);
  try {
    writeFileSync(join(dir, 'ferry.yaml'), yaml);
    const config = await loadConfig(join(dir, 'ferry.yaml'));
    const { prepared } = await inspectExport(config, config.exports[0]!);
    await test({ dir, standIn, client, store, prepared: prepared! });
  } finally {
    await store.close();
    await client.close();
    await server.close();
  }
}

describe.each(['inclusive', 'exclusive'] as const)('an export sliced in time windows, service bounds %s', (bounds) => {
  it('writes every record once, and again once on a re-run', async () => {
    const yaml = `version: 1
exports:
  - name: calls
    resource: conversations
    naming: api
    metadata: false
    destination: { type: sqlite-table, path: out.db, table: calls }
`;
    await withStandIn(bounds, yaml, async ({ dir, standIn, client, store, prepared }) => {
      const run = () => runExport(prepared, { store, service: client }, { signal: new AbortController().signal, logger: pino({ level: 'silent' }), detailConcurrency: 8 });
      const first = await run();
      expect(first).toMatchObject({ status: 'succeeded', exported: COUNT });
      // It read in windows: bounded queries, several in flight.
      expect(standIn.queries.filter((query) => query.startedBefore !== undefined).length).toBeGreaterThan(8);
      const second = await run();
      expect(second).toMatchObject({ status: 'succeeded', exported: COUNT });
      const db = new Database(join(dir, 'out.db'), { readonly: true });
      try {
        const counted = db.prepare('SELECT count(*) AS n, count(DISTINCT conversationId) AS ids FROM calls').get() as { n: number; ids: number };
        expect(counted).toEqual({ n: COUNT, ids: COUNT });
      } finally {
        db.close();
      }
    });
  });
});

describe('an export whose destination fails while the read goes on', () => {
  it('fails with the write\'s error, writes nothing after it and leaves the watermark', async () => {
    const yaml = `version: 1
exports:
  - name: calls
    resource: conversations
    incremental: { cursor: startTime }
    destination: { type: sqlite-table, path: out.db, table: calls }
`;
    await withStandIn('exclusive', yaml, async ({ client, store, prepared }) => {
      const writes: number[] = [];
      const failing = {
        ...prepared,
        destination: {
          ...prepared.destination,
          open: async (ctx: Parameters<typeof prepared.destination.open>[0]) => {
            const writer = await prepared.destination.open(ctx);
            return {
              ...writer,
              write: async (batch: Parameters<typeof writer.write>[0]) => {
                writes.push(batch.records.length);
                if (writes.length === 2) throw new Error('disk full');
                await writer.write(batch);
              },
            };
          },
        },
      };
      const summary = await runExport(failing, { store, service: client }, { signal: new AbortController().signal, logger: pino({ level: 'silent' }), detailConcurrency: 8, batchSize: 100 });
      expect(summary).toMatchObject({ status: 'failed', exported: 100, cursor: null });
      expect(summary.error).toMatch(/disk full/);
      expect(writes).toEqual([100, 100]);
    });
  });
});
