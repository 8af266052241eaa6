import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DuplicateIds } from '../../../src/pipeline/duplicate-ids.js';

describe('DuplicateIds', () => {
  it('counts every repeat, names the first 20 and logs each of those once, then the rest as one count', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const ids = new DuplicateIds(logger);
    let duplicates = 0;
    for (let i = 0; i < 60; i++) if (ids.isDuplicate(`id-${i % 30}`, `f.csv:${i + 2}`)) duplicates++;
    ids.close();
    expect(duplicates).toBe(30);
    expect(ids.examples).toHaveLength(20);
    expect(ids.examples[0]).toEqual({ remoteId: 'id-0', origin: 'f.csv:32' });
    expect(lines.filter((l) => l.remoteId !== undefined)).toHaveLength(20);
    expect(lines.at(-1)).toMatchObject({ duplicates: 30, msg: '10 more duplicate ids in this read were not pushed' });
  });
});
