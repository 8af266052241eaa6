/**
 * Partitioned syncs: slices of a sync, their state keys, the store a slice's
 * run sees (its own lock, cursor and runs; the sync's shared ledger), and
 * the refusals at config time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import csv from '../../../connectors/sources/csv/index.js';
import { loadConfig } from '../../../src/config/index.js';
import { partitionKey, partitionStore, partitionsOf } from '../../../src/pipeline/partitions.js';
import { inspectSync } from '../../../src/pipeline/prepare.js';
import { inPartition, partitionBucket } from '../../../src/sdk/index.js';
import { openStateStore } from '../../../src/state/index.js';
import type { StateStore } from '../../../src/state/index.js';
import { issuesOf, project } from '../config/fixtures.js';
import { readAll } from '../connectors/helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('partition buckets', () => {
  it('are stable, in range, and spread identities over every slice', () => {
    const buckets = Array.from({ length: 400 }, (_, i) => partitionBucket(`file-${i}.csv`, 4));
    expect(buckets.every((b) => b >= 0 && b < 4)).toBe(true);
    expect(new Set(buckets).size).toBe(4);
    expect(partitionBucket('file-7.csv', 4)).toBe(buckets[7]);
    expect(inPartition('x', undefined)).toBe(true);
  });

  it('name one slice per index, or the whole sync when not partitioned', () => {
    expect(partitionsOf({ partitions: { count: 3 } })).toEqual([{ index: 0, count: 3 }, { index: 1, count: 3 }, { index: 2, count: 3 }]);
    expect(partitionsOf({})).toEqual([undefined]);
    expect(partitionKey('orders', { index: 2, count: 3 })).toBe('orders#2/3');
  });
});

describe('partitionStore', () => {
  it("keeps a slice's lock, cursor and runs under its own key and the ledger under the sync", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-partition-store-'));
    dirs.push(dir);
    const store: StateStore = await openStateStore(`sqlite:${join(dir, 'state.db')}`);
    try {
      const slice = partitionStore(store, 'orders', { index: 1, count: 2 });
      expect(await slice.acquireLock('orders', 'me', 60_000)).toBe(true);
      // The other slice's lock is free: slices run in parallel.
      expect(await store.acquireLock('orders#0/2', 'other', 60_000)).toBe(true);
      await slice.recordAcknowledged({ sync: 'orders', remoteId: 'r1', fingerprint: 'f', recordId: 'x' });
      await slice.checkpoint('orders', { value: 5, key: '5' });
      const runId = await slice.startRun('orders');
      await slice.finishRun(runId, { status: 'succeeded', counts: { read: 1, pushed: 1, created: 1, updated: 0, unchanged: 0, failed: 0, deleted: 0, skipped: 0 } });

      expect(await store.cursor('orders#1/2')).toEqual({ value: 5, key: '5' });
      expect(await store.cursor('orders')).toBeUndefined();
      expect(await slice.cursor('orders')).toEqual({ value: 5, key: '5' });
      expect((await store.lockHolder('orders#1/2'))?.owner).toBe('me');
      expect((await store.runs({ limit: 5 })).map((r) => r.sync)).toEqual(['orders#1/2']);
      expect(await store.countLive('orders')).toBe(1);
    } finally {
      await store.close();
    }
  });
});

describe('partitioned file sources', () => {
  it('give each file wholly to one slice, and every file to some slice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-partition-files-'));
    dirs.push(dir);
    for (let f = 0; f < 8; f++) writeFileSync(join(dir, `part-${f}.csv`), `id,file\n${f}a,${f}\n${f}b,${f}\n`);
    const read = (index: number) => readAll(csv, { path: 'part-*.csv', primaryKey: 'id' }, { baseDir: dir, partition: { index, count: 3 } });
    const slices = await Promise.all([0, 1, 2].map(read));
    const files = slices.map((records) => new Set(records.map((r) => r.data.file)));
    expect(slices.flat().map((r) => r.data.id).sort()).toHaveLength(16);
    for (let a = 0; a < 3; a++) for (let b = a + 1; b < 3; b++) expect([...files[a]!].filter((f) => files[b]!.has(f))).toEqual([]);
  });
});

describe('partitions: in ferry.yaml', () => {
  const yaml = (extra: string, type = 'csv') => `version: 1
syncs:
  - name: orders
    source: { type: ${type}, path: data.csv, primaryKey: id }
    partitions: { count: 4 }${extra}
    target: { type: row, source: { name: crm }, objectType: { name: deal }, map: { id: id, name: id } }
`;

  it('refuses deletes: mirror and group:, saying why', async () => {
    const dir = await project({ 'ferry.yaml': yaml('\n    deletes: mirror\n    group: { by: id }') });
    const { issues } = await issuesOf(loadConfig(join(dir, 'ferry.yaml'), { env: {} }));
    const messages = issues.filter((i) => i.path === 'syncs[0].partitions').map((i) => i.message);
    expect(messages).toEqual([expect.stringContaining('deletes: mirror'), expect.stringContaining('group:')]);
  });

  it('refuses a source that cannot read partitions', async () => {
    const dir = await project({ 'ferry.yaml': yaml('', 'mbox'), 'data.csv': 'id\n1\n' });
    const config = await loadConfig(join(dir, 'ferry.yaml'), { env: {} });
    const { issues } = await inspectSync(config, config.syncs[0]!);
    expect(issues.map((i) => i.message)).toContainEqual(expect.stringContaining('cannot read partitions'));
  });
});
