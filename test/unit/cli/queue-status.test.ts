import { describe, expect, it } from 'vitest';
import { formatQueueStatus } from '../../../src/cli/worker.js';
import type { QueueEntry } from '../../../src/worker/queue-status.js';

const at = '2026-01-01T00:00:00.000Z';
const now = Date.parse(at) + 5_000;

describe('the queue section of ferry status', () => {
  it('shows a scheduled run of a partitioned sync as the slices it queued, and each slice with its outcome', () => {
    const entries: QueueEntry[] = [
      { kind: 'sync', name: 'orders', jobId: 'a', state: 'succeeded', worker: 'w1', attempts: 1, at, outcome: { status: 'succeeded', exitCode: 0, runId: null, queued: [{ key: 'orders#0/2' }, { key: 'orders#1/2' }] } as QueueEntry['outcome'] },
      { kind: 'sync', name: 'orders#0/2', jobId: 'b', state: 'finished', worker: 'w2', attempts: 1, at, outcome: { status: 'partial', exitCode: 2, runId: 'r', error: '3 records rejected' } },
    ];
    const lines = formatQueueStatus(entries, now).split('\n');
    expect(lines.find((l) => l.includes('sync orders ') && l.includes('w1'))).toContain('queued 2 slices');
    expect(lines.find((l) => l.includes('sync orders#0/2'))).toContain('partial: 3 records rejected');
  });
});
