/**
 * The slices of a partitioned sync share one target. Run at the same time
 * (as workers run them), each found the source and object type missing and
 * created them, and all but one got a 409. They now set the target up one at
 * a time under the sync's setup lock: no 409 at start, and every row lands once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StandInService } from '../../support/stand-in/service.js';
import { ServiceClient } from '../../../src/api/client.js';
import { loadConfig } from '../../../src/config/index.js';
import { partitionsOf, runSyncPart } from '../../../src/pipeline/partitions.js';
import { prepareSync } from '../../../src/pipeline/prepare.js';
import { openStateStore } from '../../../src/state/index.js';

const ROWS = 400;
const SLICES = 4;
let dir: string;
let service: StandInService;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ferry-slices-'));
  // Setup calls take a moment, as a real service's do: without the lock the slices' lists all come back empty.
  service = await new StandInService({ kind: 'latency', ms: 20 }).start();
  writeFileSync(join(dir, 'rows.csv'), `${['id,amount', ...Array.from({ length: ROWS }, (_, i) => `r${i},${i}`)].join('\n')}\n`);
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: { baseUrl: ${service.url}, apiKey: test-key }
state: { url: "sqlite:state.db" }
syncs:
  - name: rows
    source: { type: csv, path: rows.csv, primaryKey: id }
    partitions: { count: ${SLICES} }
    target:
      type: row
      source: { name: sliced }
      objectType: { name: item, fields: { amount: int } }
      map: { id: id, name: id, public: true, fields: { amount: amount } }
`,
  );
});

afterEach(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('partitioned sync start-up', () => {
  it('sets the shared target up once when every slice starts at the same time: no 409', async () => {
    const config = await loadConfig(join(dir, 'ferry.yaml'));
    const sync = config.syncs[0]!;
    const prepared = await prepareSync(config, sync);
    const store = await openStateStore(config.state.url);
    const conflicts: string[] = [];
    const client = new ServiceClient({
      baseUrl: service.url,
      apiKey: 'test-key',
      observer: { onResponse: ({ endpoint, status }) => void (status === 409 && conflicts.push(endpoint)) },
    });
    try {
      const options = { signal: new AbortController().signal, logger: pino({ level: 'silent' }), maxAttempts: 6 };
      const summaries = await Promise.all(partitionsOf(sync).map((slice) => runSyncPart(prepared, { store, service: client }, options, slice)));
      expect(summaries.map((s) => s.status)).toEqual(Array(SLICES).fill('succeeded'));
      expect(conflicts).toEqual([]);
      expect([...service.records.keys()].filter((k) => k.startsWith('row '))).toHaveLength(ROWS);
      expect(summaries.reduce((n, s) => n + s.counts.pushed, 0)).toBe(ROWS);
    } finally {
      await client.close();
      await store.close();
    }
  });
});
