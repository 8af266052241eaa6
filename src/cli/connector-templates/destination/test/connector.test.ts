import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SDK_VERSION } from 'ferry/sdk';
import destination from '../src/index.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

describe('__CONNECTOR_NAME__', () => {
  it('is a destination for this SDK version with valid example options', () => {
    expect(destination.kind).toBe('destination');
    expect(destination.sdkVersion).toBe(SDK_VERSION);
    expect(destination.options.safeParse(destination.example).success).toBe(true);
  });

  it('appends each batch as JSON Lines to one file per stream', async () => {
    const baseDir = mkdtempSync(join(tmpdir(), '__CONNECTOR_NAME__-'));
    const ctx = { options: destination.options.parse({ dir: 'out' }), baseDir, syncName: 'test', logger: silent, signal: new AbortController().signal };
    const writer = await destination.open(ctx);
    await writer.write({ stream: 'rows', records: [{ id: 1 }, { id: 2 }] });
    await writer.write({ stream: 'rows', records: [{ id: 3 }] });
    await writer.close();
    const lines = readFileSync(join(baseDir, 'out', 'rows.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });
});
