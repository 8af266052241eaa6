/**
 * A service whose paging lists a record again on the next page (the spec
 * allows it: documents with one creation time at a page boundary, records
 * added while a list is paged), end to end: ferry's client against an HTTP
 * list doing that at every boundary, exported into a JSON Lines file read
 * back with node:fs. Each document is in the file once, and the repeats are
 * counted in the summary's skipped.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/api/client.js';
import { loadConfig } from '../../../src/config/index.js';
import { inspectExport, runExport } from '../../../src/export/index.js';
import { openStateStore } from '../../../src/state/index.js';
import { tempDir } from '../../unit/export/helpers.js';

const COUNT = 260;
const CREATED = '2025-03-01T12:00:00.000Z';

/** Documents sharing one creation time, as the spec's boundary case has them. */
const documents = Array.from({ length: COUNT }, (_, i) => ({
  id: `00000000-0000-4000-9000-${i.toString(16).padStart(12, '0')}`,
  displayName: `Doc ${i}`,
  sourceId: 'chat_upload',
  remoteId: `doc-${i}`,
  url: null,
  contentType: 'text/plain',
  createdAt: CREATED,
  updatedAt: CREATED,
}));

/** GET /v1/documents by an offset cursor, every page after the first starting with the previous page's last document again. */
async function repeatingList(): Promise<{ url: string; repeats: () => number; close: () => Promise<void> }> {
  let repeats = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const offset = Number(url.searchParams.get('cursor') ?? 0);
    const start = offset === 0 ? 0 : offset - 1;
    if (offset > 0) repeats += 1;
    const items = documents.slice(start, offset + limit);
    const hasMore = offset + limit < COUNT;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ documents: items, pagination: { hasMore, nextCursor: hasMore ? String(offset + limit) : null } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    repeats: () => repeats,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('an export of a list whose pages repeat records at their boundaries', () => {
  it('writes each record once and counts the repeats as skipped', async () => {
    const dir = tempDir();
    const list = await repeatingList();
    const client = new ServiceClient({ baseUrl: list.url, apiKey: 'sk_live_test', concurrency: 4 });
    const store = await openStateStore(`sqlite:${join(dir, 'state.db')}`);
    try {
      writeFileSync(
        join(dir, 'ferry.yaml'),
        `version: 1
exports:
  - name: docs
    resource: documents
    destination: { type: file, path: docs.jsonl }
`,
      );
      const config = await loadConfig(join(dir, 'ferry.yaml'));
      const { prepared } = await inspectExport(config, config.exports[0]!);
      const summary = await runExport(prepared!, { store, service: client }, { signal: new AbortController().signal, logger: pino({ level: 'silent' }), detailConcurrency: 4 });
      expect(summary).toMatchObject({ status: 'succeeded', exported: COUNT });
      expect(list.repeats()).toBe(5);
      expect(summary.counts.skipped).toBe(5);
      const lines = readFileSync(join(dir, 'docs.jsonl'), 'utf8').trim().split('\n');
      const ids = lines.map((line) => (JSON.parse(line) as { id: string }).id);
      expect(ids.length).toBe(COUNT);
      expect(new Set(ids).size).toBe(COUNT);
    } finally {
      await store.close();
      await client.close();
      await list.close();
    }
  });
});
