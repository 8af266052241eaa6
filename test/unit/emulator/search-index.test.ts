import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EmulatorStore } from '../../../src/emulator/store/index.js';

const ORG = '6f1c0a52-8d5e-4a8e-9a43-0f3a1b2c3d4e';
const SOURCE = '7f1c0a52-8d5e-4a8e-9a43-0f3a1b2c3d4e';

function putMessage(store: EmulatorStore, remoteId: string, body: string, isPublic = true) {
  return store.putRecord(
    { orgId: ORG, kind: 'message', sourceId: SOURCE, remoteId },
    {
      public: isPublic,
      ownerEmails: isPublic ? [] : ['a@b.example'],
      sortMs: 0,
      data: { threadId: null, subject: 'Quote', sender: null, recipients: [], body, createdAt: '2024-01-01T00:00:00.000Z', attachments: [] },
    },
  ).record;
}

describe('search index kept in step with writes in batches', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('finds a record written just before the search, and never a deleted or private one', () => {
    const store = new EmulatorStore(':memory:');
    const kept = putMessage(store, 'm-1', 'The zeppelin quote is attached.');
    const gone = putMessage(store, 'm-2', 'Another zeppelin quote.');
    putMessage(store, 'm-3', 'A private zeppelin plan.', false);
    store.deleteRecord(gone.id);
    expect(store.search.search(ORG, 'zeppelin', 10).map((h) => h.recordId)).toEqual([kept.id]);
    // An update replaces the passages rather than adding to them.
    putMessage(store, 'm-1', 'Now about airships.');
    expect(store.search.search(ORG, 'zeppelin', 10)).toEqual([]);
    expect(store.search.search(ORG, 'airships', 10).map((h) => h.recordId)).toEqual([kept.id]);
    store.close();
  });

  it('indexes in batches and keeps the queue across a restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-search-'));
    dirs.push(dir);
    const path = join(dir, 'emulator.db');
    const first = new EmulatorStore(path);
    const ids = ['a', 'b', 'c'].map((r) => putMessage(first, r, `zeppelin number ${r}`).id);
    expect(first.search.catchUp(2)).toBe(1);
    first.close();
    const second = new EmulatorStore(path);
    expect(second.search.search(ORG, 'zeppelin', 10).map((h) => h.recordId).sort()).toEqual([...ids].sort());
    expect(second.search.catchUp()).toBe(0);
    second.close();
  });
});
