/** The SQLite backend runs the state store's contract (test/support/state-store-conformance.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStateStore } from '../../../src/state/index.js';
import { describeStateStoreConformance } from '../../support/state-store-conformance.js';

describeStateStoreConformance('sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-state-conformance-'));
  return {
    open: (options = {}) => openStateStore(`sqlite:${join(dir, 'ferry.db')}`, options),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
});

// The same contract with the store's threads (the ledger reader, the commit thread) from the first look and write.
describeStateStoreConformance('sqlite, with its threads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-state-conformance-threads-'));
  return {
    open: (options = {}) => openStateStore(`sqlite:${join(dir, 'ferry.db')}`, { ...options, threadsAfter: 0 }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
});
