import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EmulatorStore } from '../../../src/emulator/store/index.js';

const ORG = '6f1c0a52-8d5e-4a8e-9a43-0f3a1b2c3d4e';

describe('group commit of the emulator store', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempDb = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-batch-'));
    dirs.push(dir);
    return join(dir, 'emulator.db');
  };

  it('commits every write of the turn once, and a failing write rolls back alone', async () => {
    const path = tempDb();
    const store = new EmulatorStore(path);
    store.beginWriteBatch();
    const kept = store.sources.create(ORG, 'kept', 'Kept');
    expect(() =>
      store.db.transaction(() => {
        store.sources.create(ORG, 'undone', 'Undone');
        throw new Error('this write fails');
      })(),
    ).toThrow('this write fails');
    store.sources.create(ORG, 'also-kept', 'Also kept');
    expect(store.db.inTransaction).toBe(true);
    await store.whenCommitted();
    expect(store.db.inTransaction).toBe(false);

    // Another connection sees exactly what was committed.
    const other = new EmulatorStore(path);
    expect(other.sources.list(ORG).map((s) => s.name)).toEqual(['kept', 'also-kept']);
    expect(other.sources.find(kept.id)?.name).toBe('kept');
    other.close();
    store.close();
  });

  it('commits an open batch on close', () => {
    const path = tempDb();
    const store = new EmulatorStore(path);
    store.beginWriteBatch();
    store.sources.create(ORG, 'late', 'Late');
    store.close();
    const reopened = new EmulatorStore(path);
    expect(reopened.sources.list(ORG).map((s) => s.name)).toEqual(['late']);
    reopened.close();
  });
});
