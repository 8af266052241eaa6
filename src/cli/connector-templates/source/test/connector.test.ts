import { describe, expect, it } from 'vitest';
import { describeSourceConformance, isFerryError, type SourceRecord } from 'ferry/sdk';
import source from '../src/index.js';

const baseDir = import.meta.dirname;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

async function readAll(path: string): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  const ctx = { options: source.options.parse({ path }), baseDir, syncName: 'test', logger: silent, signal: new AbortController().signal };
  for await (const record of source.read(ctx)) records.push(record);
  return records;
}

// The SDK's conformance suite: options, discover, origins, unique keys,
// incremental reads that repeat nothing, sorted cursors, resuming after an abort.
await describeSourceConformance(source, {
  options: { path: 'fixtures/tickets.jsonl' },
  baseDir,
  expectedCount: 6,
  primaryKey: ['id'],
  cursorField: 'updated_at',
  sorted: true,
});

describe('__CONNECTOR_NAME__', () => {
  it('gives every ticket its file and line, skipping blank lines', async () => {
    const records = await readAll('fixtures/tickets.jsonl');
    expect(records.map((r) => r.origin.line)).toEqual([1, 2, 3, 5, 6, 7]);
    expect(records[3]?.data).toMatchObject({ id: 104, tags: ['ui'] });
  });

  it('names the file when it is missing', async () => {
    const error = await readAll('fixtures/nothing.jsonl').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/nothing\.jsonl/);
    expect(isFerryError(error) || (error as { code?: string }).code === 'ENOENT').toBe(true);
  });
});
