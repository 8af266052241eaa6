/**
 * Records the service itself refuses (its 400, which ferry's own validation
 * does not foresee: a field the object type requires) are dead-lettered with
 * the service's answer and their origin, the incremental cursor still moves
 * past them, a retry that fails again keeps one entry each, and
 * `failures retry` lands them once the mapping is fixed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FailureEntry } from '../../../src/state/index.js';
import { Harness, readRows } from './harness.js';

const EVENTS = (kind = 'kind') => `  - name: events
    source: { type: csv, path: data/events.csv, primaryKey: id }
    incremental: { cursor: updated_at }
    target:
      type: row
      source: { name: app }
      objectType:
        name: event
        fields:
          kind: { type: string, required: true }
          at: string
      map:
        id: id
        name: id
        public: true
        fields: { kind: ${JSON.stringify(kind)}, at: updated_at }
`;

const ROWS = ['1,a,2024-03-01T10:00:01Z', '2,,2024-03-01T10:00:02Z', '3,c,2024-03-01T10:00:03Z', '4,d,2024-03-01T10:00:04Z', '5,,2024-03-01T10:00:05Z', '6,f,2024-03-01T10:00:06Z'];

describe('records the service rejects', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await new Harness().start();
  });
  afterEach(async () => {
    await h.close();
  });

  async function failures(): Promise<FailureEntry[]> {
    const entries = await h.withState((store) => store.failures({ sync: 'events' }));
    return entries.sort((a, b) => (a.remoteId ?? '').localeCompare(b.remoteId ?? ''));
  }

  it('are dead-lettered with the service answer and origin, the cursor moves on, and a retry lands them after a fix', async () => {
    h.write('data/events.csv', ['id,kind,updated_at', ...ROWS].join('\n') + '\n');
    h.writeConfig(EVENTS());
    const first = await h.run();
    expect(first.summaries[0]).toMatchObject({ status: 'partial', exitCode: 2, counts: { read: 6, created: 4, failed: 2 } });
    expect(first.summaries[0]!.cursor).toMatchObject({ value: '2024-03-01T10:00:06Z' });

    const entries = await failures();
    expect(entries.map((f) => [f.remoteId, f.origin, f.kind, f.status])).toEqual([
      ['2', 'data/events.csv:3', 'rejected', 400],
      ['5', 'data/events.csv:6', 'rejected', 400],
    ]);
    expect(entries[0]!.reason).toMatch(/required field "kind" is missing/);
    expect(JSON.stringify(entries[0]!.errorBody)).toMatch(/validation_error/);

    // The cursor moved past the rejected records: the next run reads only the new one.
    h.write('data/events.csv', ['id,kind,updated_at', ...ROWS, '7,g,2024-03-01T10:00:07Z'].join('\n') + '\n');
    const second = await h.run();
    expect(second.summaries[0]).toMatchObject({ exitCode: 0, counts: { read: 1, created: 1, failed: 0 } });
    expect(await failures()).toHaveLength(2);

    // A retry before the fix: the service refuses them again; still one entry each, counting attempts.
    const early = await h.run({ retryFailures: true });
    expect(early.summaries[0]).toMatchObject({ exitCode: 2, counts: { read: 2, failed: 2 } });
    expect((await failures()).map((f) => [f.remoteId, f.origin, f.status, f.attempts])).toEqual([
      ['2', 'data/events.csv:3', 400, 2],
      ['5', 'data/events.csv:6', 400, 2],
    ]);

    h.writeConfig(EVENTS("kind ? kind : 'unknown'"));
    const retry = await h.run({ retryFailures: true });
    expect(retry.summaries[0]).toMatchObject({ exitCode: 0, counts: { read: 2, created: 2, failed: 0 } });
    expect(retry.summaries[0]!.cursor).toMatchObject({ value: '2024-03-01T10:00:07Z' });
    expect(await failures()).toHaveLength(0);
    const rows = await readRows(h.client, 'app', 'event');
    expect(rows.size).toBe(7);
    expect(rows.get('5')).toMatchObject({ fields: { kind: { value: 'unknown' } } });
  });
});
