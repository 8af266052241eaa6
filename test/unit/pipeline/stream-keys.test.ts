/**
 * Streams declare their keys (SourceDefinition.keys): the runner takes the
 * primary key from there, hands it to read(), and breaks cursor ties with it;
 * it no longer looks for a `primaryKey` in the connector's options.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareSync, selectSyncs } from '../../../src/pipeline/prepare.js';
import { loadProject } from '../../../src/runtime/project.js';
import { runSync } from '../../../src/pipeline/run-sync.js';
import { openStateStore } from '../../../src/state/index.js';
import { FakeService } from '../sink/fake-service.js';

/** A source whose key is a declared attribute; it also has an unrelated `primaryKey` option the runner must ignore. */
const SOURCE = `export default {
  kind: 'source', name: 'events', sdkVersion: 1,
  options: { safeParse: (o) => ({ success: true, data: o }), parse: (o) => o },
  keys: () => ({ primaryKey: ['event_id'], cursorField: 'at' }),
  async discover() { return []; },
  async *read(ctx) {
    globalThis.seenPrimaryKey = ctx.primaryKey;
    for (const [n, at] of [[1, '2024-01-01'], [2, '2024-01-02'], [3, '2024-01-02']]) {
      yield { data: { event_id: 'e' + n, at, kind: 'k' }, origin: { table: 'events', key: 'origin-' + n }, cursor: at };
    }
  },
};
`;

describe('stream keys', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('come from the source definition, not from its options', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-stream-keys-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'events-source.mjs'), SOURCE);
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service: { baseUrl: "http://127.0.0.1:9", apiKey: unused }
syncs:
  - name: events
    source: { type: ./events-source.mjs, primaryKey: kind }
    incremental: { cursor: at }
    target:
      type: row
      source: { name: app }
      objectType: { name: event, fields: { kind: string } }
      map: { id: event_id, name: kind, public: true, fields: { kind: kind } }
`,
    );
    const config = await loadProject(join(dir, 'ferry.yaml'));
    const prepared = await prepareSync(config, selectSyncs(config, ['events'])[0]!);
    const store = await openStateStore('sqlite::memory:');
    try {
      const summary = await runSync(prepared, { store, service: new FakeService() }, {
        signal: new AbortController().signal,
        logger: pino({ level: 'silent' }),
        concurrency: 2,
        maxRequestsPerSecond: 1000,
        maxAttempts: 1,
      });
      expect(summary.counts.created).toBe(3);
      expect((globalThis as { seenPrimaryKey?: unknown }).seenPrimaryKey).toEqual(['event_id']);
      // The tie at 2024-01-02 is broken by the declared key's value, not by origin.key or the `primaryKey: kind` option.
      expect(summary.cursor).toEqual({ value: '2024-01-02', key: 'e3' });
    } finally {
      await store.close();
    }
  });
});
