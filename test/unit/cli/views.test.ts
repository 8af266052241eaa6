import { describe, expect, it } from 'vitest';
import { requiredScopes } from '../../../src/project/check.js';
import { formatStream } from '../../../src/cli/discover.js';
import { formatFailures } from '../../../src/cli/failures.js';
import { formatState } from '../../../src/cli/state.js';
import { formatStatus } from '../../../src/cli/status.js';
import type { FailureEntry, RunEntry } from '../../../src/state/index.js';

const NOW = Date.parse('2025-03-01T12:00:00Z');

function run(overrides: Partial<RunEntry> = {}): RunEntry {
  return {
    runId: 'r-1',
    sync: 'deals',
    startedAt: '2025-03-01T11:55:00Z',
    finishedAt: '2025-03-01T11:55:02Z',
    status: 'partial',
    counts: { read: 1200, pushed: 10, created: 4, updated: 6, unchanged: 1188, failed: 2, deleted: 0, skipped: 0 },
    durationMs: 2150,
    error: null,
    cursor: null,
    ...overrides,
  };
}

function failure(overrides: Partial<FailureEntry> = {}): FailureEntry {
  return {
    id: 7,
    sync: 'deals',
    runId: 'r-1',
    remoteId: 'D-42',
    origin: 'data/deals.csv:43',
    kind: 'rejected',
    reason: 'fields.amount: expected a number\nfound "n/a"',
    status: 400,
    errorBody: { error: 'bad' },
    body: {},
    sourceRecord: {},
    createdAt: '2025-03-01T11:59:00Z',
    attempts: 1,
    ...overrides,
  };
}

describe('requiredScopes', () => {
  it('asks ingest and read for syncs, read alone for exports, nothing for an empty project', () => {
    expect(requiredScopes({ syncs: [{}], exports: [] } as never)).toEqual(['ingest', 'read']);
    expect(requiredScopes({ syncs: [], exports: [{}] } as never)).toEqual(['read']);
    expect(requiredScopes({ syncs: [], exports: [] })).toEqual([]);
  });
});

describe('formatStatus', () => {
  it('shows counts, age, duration and cursor per sync, and "never run" for a new one', () => {
    const text = formatStatus(
      [
        { sync: 'deals', configured: true, lastRun: run(), cursor: { value: '2025-02-28T10:00:00.123456Z', key: '9' }, openFailures: 2, liveRecords: 1198 },
        { sync: 'notes', configured: false, lastRun: null, cursor: null, openFailures: 0, liveRecords: 0 },
      ],
      NOW,
    );
    const [header, deals, notes] = text.split('\n');
    expect(header).toMatch(/^SYNC +LAST RUN +WHEN +DURATION +READ +CREATED +UPDATED +UNCHANGED +FAILED +SKIPPED +DELETED +OPEN FAILURES +LIVE +CURSOR$/);
    expect(deals).toMatch(/^deals +partial +5 min ago +2\.1 s +1,200 +4 +6 +1,188 +2 +0 +0 +2 +1,198 +2025-02-28T10:00:00\.123456Z \(key 9\)$/);
    expect(notes).toMatch(/^notes \(not in config\) +never run +- +- /);
    expect(text).toContain('`ferry failures list deals`');
  });

  it('says so when there are no syncs', () => {
    expect(formatStatus([], NOW)).toMatch(/^No syncs/);
  });
});

describe('formatFailures', () => {
  it('cuts the reason to the width given and keeps rows on one line', () => {
    const text = formatFailures([failure(), failure({ id: 8, kind: 'invalid', status: null, remoteId: null, attempts: 3 })], NOW, 20);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^ 7 +deals +1 min ago +rejected +400 +D-42 +data\/deals\.csv:43 +fields\.amount: expe…$/);
    expect(lines[2]).toMatch(/^ 8 +deals +1 min ago +invalid ×3 +- +- +/);
  });

  it('prints the whole reason when no width is given (a pipe)', () => {
    expect(formatFailures([failure()], NOW, undefined)).toContain('fields.amount: expected a number found "n/a"');
  });
});

describe('formatState', () => {
  it('shows the cursor at full precision and who holds the lock', () => {
    const text = formatState(
      [
        {
          sync: 'deals',
          configured: true,
          cursor: { value: '2025-02-28T10:00:00.123456+01:00' },
          liveRecords: 1,
          openFailures: 0,
          lock: { held: true, runId: 'r-9', since: '2025-03-01T11:58:00Z' },
          lastRun: { runId: 'r-9', status: 'running', startedAt: '2025-03-01T11:58:00Z', finishedAt: null },
        },
      ],
      NOW,
    );
    expect(text).toContain('cursor    2025-02-28T10:00:00.123456+01:00');
    expect(text).toContain('ledger    1 live record acknowledged');
    expect(text).toContain('lock      held by run r-9 (started 2 min ago)');
  });
});

describe('formatStream', () => {
  it('lists fields with source and inferred types and marks keys and cursor candidates', () => {
    const text = formatStream({
      name: 'public.deals',
      estimatedCount: 8800,
      primaryKey: ['id'],
      cursorCandidates: ['updated_at'],
      fields: [
        { name: 'id', type: 'int', sourceType: 'bigint', nullable: false },
        { name: 'updated_at', type: 'datetime', sourceType: 'timestamptz', nullable: true },
        { name: 'note', type: 'textarea' },
      ],
    });
    expect(text).toContain('stream public.deals  (~8,800 records)');
    expect(text).toContain('primary key:        id');
    expect(text).toMatch(/ id +bigint +int +no +key\n/);
    expect(text).toMatch(/ updated_at +timestamptz +datetime +yes +cursor\?\n/);
    expect(text).toMatch(/ note +- +textarea +-$/);
  });
});
