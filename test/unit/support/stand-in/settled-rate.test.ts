import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StandInService } from '../../../support/stand-in/service.js';

/**
 * The push bench reports the rate after a run's first second beside the
 * whole run's (the slow start and cold code fall in that second): the
 * stand-in marks the first write a second or more after the first one.
 */
describe('the stand-in marks when a run has settled', () => {
  const service = new StandInService();
  beforeAll(() => service.start());
  afterAll(() => service.close());

  const write = async (id: string): Promise<void> => {
    const res = await fetch(`${service.url}/v1/rows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id, sourceId: 'source-1', objectTypeId: 'type-1', name: id, public: true, fields: {} }),
    });
    expect(res.status).toBe(201);
  };

  it('counts the writes up to the first one a second after the start, and not before', async () => {
    for (const id of ['a', 'b', 'c']) await write(id);
    expect(service.stats.settledAt).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1050));
    for (const id of ['d', 'e']) await write(id);
    expect(service.stats.written).toBe(5);
    // The fourth write settled the run: the rate after it counts the fifth alone.
    expect(service.stats.writtenBySettled).toBe(4);
    expect(service.stats.settledAt - service.stats.firstWriteAt).toBeGreaterThanOrEqual(1000);
  });
});
