/**
 * A field gets one type whichever way ferry meets it first: in the first
 * records (sampled when the object type is created) or later in the run
 * (added by the object-type evolver). Both use the same inference and the
 * same discover() hints.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SAMPLE_UNITS } from '../../../src/pipeline/target-setup.js';
import { Harness } from './harness.js';

/** A record carrying every field under test. */
const FULL = { qty: 42, flag: 'true', ratio: '1.5', code: '007', closed: '2024-03-01', amount: '12' };

const jsonl = (records: readonly object[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

const SYNC = (name: string) => `  - name: ${name}
    source: { type: jsonl, path: data/${name}.jsonl, primaryKey: id }
    target:
      type: row
      source: { name: crm }
      objectType: { name: ${name} }
      map:
        id: id
        name: id
        public: true
        fields:
          stage: stage
          # Expressions: no discover() hint, the values decide ("42", "true", "1.5", "007", "2024-03-01").
          qty: $string(qty)
          flag: $string(flag)
          ratio: $string(ratio)
          code: $string(code)
          closed: $string(closed)
          # A bare column: jsonl's discover() says string, and that wins on both paths.
          amount: amount
`;

async function fieldTypes(h: Harness, objectType: string): Promise<Record<string, string>> {
  const { sources } = await h.client.listSources({ name: 'crm' });
  const { objectTypes } = await h.client.listObjectTypes({ sourceId: sources[0]!.id });
  const type = objectTypes.find((t) => t.name === objectType);
  return Object.fromEntries((type?.fieldDefinitions ?? []).map((d) => [d.name, d.fieldType]));
}

describe('field type inference through a sync', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await new Harness().start();
  });
  afterEach(async () => {
    await h.close();
  });

  it('gives the same values the same field types, whether the first records or a later one introduce them', async () => {
    // "sampled": the fields are in the first records. "evolved": they appear only after the sample.
    h.write('data/sampled.jsonl', jsonl([{ id: 's1', stage: 'Won', ...FULL }, { id: 's2', stage: 'Lost', ...FULL }]));
    const before = Array.from({ length: SAMPLE_UNITS }, (_, i) => ({ id: `e${i}`, stage: 'Won' }));
    h.write('data/evolved.jsonl', jsonl([...before, { id: 'late', stage: 'Lost', ...FULL }]));
    h.writeConfig(SYNC('sampled') + SYNC('evolved'));

    const { summaries, requests } = await h.run();
    expect(summaries.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    // The evolved type really was grown by the evolver, mid-run.
    expect(requests.filter((r) => r.method === 'PATCH' && r.path.startsWith('/v1/object-types/'))).toHaveLength(1);

    const expected = { stage: 'string', qty: 'int', flag: 'boolean', ratio: 'double', code: 'string', closed: 'date', amount: 'string' };
    expect(await fieldTypes(h, 'sampled')).toEqual(expected);
    expect(await fieldTypes(h, 'evolved')).toEqual(expected);
  });
});
