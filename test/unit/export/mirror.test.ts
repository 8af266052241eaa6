/** deletes: mirror: what reaches the destination, and the guard against an empty listing. */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { assertCanMirror, mirrorDeletes } from '../../../src/export/mirror.js';
import { RESOURCES } from '../../../src/export/index.js';
import type { DestinationWriter, RetainRequest } from '../../../src/sdk/index.js';

function writer(): DestinationWriter & { requests: RetainRequest[] } {
  const requests: RetainRequest[] = [];
  return { requests, write: async () => undefined, close: async () => undefined, retain: async (request) => (requests.push(request), 2) };
}

describe('mirrorDeletes', () => {
  it('asks the destination to keep the listed keys and returns what it deleted', async () => {
    const target = writer();
    expect(await mirrorDeletes(target, RESOURCES.deals, new Set(['D-1']), pino({ level: 'silent' }))).toBe(2);
    expect(target.requests).toEqual([{ stream: 'deals', key: 'dealId', keys: new Set(['D-1']) }]);
  });

  it('deletes nothing when the service lists no record at all', async () => {
    const target = writer();
    expect(await mirrorDeletes(target, RESOURCES.deals, new Set(), pino({ level: 'silent' }))).toBe(0);
    expect(target.requests).toEqual([]);
  });

  it('refuses a destination that cannot delete, naming it', () => {
    const { retain: _retain, ...files } = writer();
    expect(() => assertCanMirror(files, 'file', 'deals')).toThrow(/destination file cannot delete records/);
  });

  it('takes an append-only dataset for deletes: soft only, and says so when asked to delete', () => {
    const dataset = { ...writer(), retainModes: ['soft'] as const };
    expect(() => assertCanMirror(dataset, 'parquet', 'calls', 'soft')).not.toThrow();
    let refused: unknown;
    try {
      assertCanMirror(dataset, 'parquet', 'calls', 'mirror');
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: 'FERRY_CONFIG_INVALID', message: expect.stringMatching(/parquet cannot delete records/), hint: expect.stringMatching(/deletes: soft/) });
  });
});
