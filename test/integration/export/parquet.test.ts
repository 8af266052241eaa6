/** The parquet destination on real files, read back with DuckDB: types, partitions, append vs overwrite, abort. */
import { existsSync, mkdirSync, readdirSync, utimesSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import parquet from '../../../connectors/destinations/parquet/index.js';
import { contextFor, conversationRecord, openWriter, tempDir } from '../../unit/export/helpers.js';

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run("SET TimeZone = 'UTC'");
    return (await connection.runAndReadAll(sql)).getRowObjectsJson();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function files(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

const call = (id: string, startTime: string) => ({ ...conversationRecord(id, 2), startTime, duration: 30 });
const batch = (records: Record<string, unknown>[]) => ({ stream: 'conversations', key: 'conversationId', records });

describe('parquet destination', () => {
  it('writes typed files partitioned by month, readable by DuckDB; append adds files and keeps the old ones', async () => {
    const dir = tempDir();
    const options = { path: 'lake', table: 'conversations', mode: 'append', partition: { field: 'startTime', by: 'month' } };
    const first = await openWriter(parquet, options, dir);
    await first.write(batch([call('c1', '2024-03-01T09:00:00.000Z'), call('c2', '2024-04-02T09:00:00.000Z')]));
    await first.write(batch([call('c1', '2024-03-01T09:00:00.000Z')]));
    await first.close();
    const lake = join(dir, 'lake');
    const firstFiles = files(lake);
    expect(firstFiles.map((file) => file.split('/')[1])).toEqual(['month=2024-03', 'month=2024-04']);

    const second = await openWriter(parquet, options, dir);
    await second.write(batch([call('c3', '2024-04-20T09:00:00.000Z')]));
    await second.close();
    const secondFiles = files(lake);
    expect(secondFiles).toHaveLength(3);
    expect(secondFiles).toEqual(expect.arrayContaining(firstFiles));

    const glob = `${lake}/conversations/**/*.parquet`;
    expect(await query(`SELECT conversationId, month, duration::INT AS d, typeof(startTime) AS t, participants->>'$[0].name' AS first FROM read_parquet('${glob}', hive_partitioning = true) ORDER BY 1`)).toEqual([
      { conversationId: 'c1', month: '2024-03', d: 30, t: 'TIMESTAMP WITH TIME ZONE', first: 'Ann' },
      { conversationId: 'c2', month: '2024-04', d: 30, t: 'TIMESTAMP WITH TIME ZONE', first: 'Ann' },
      { conversationId: 'c3', month: '2024-04', d: 30, t: 'TIMESTAMP WITH TIME ZONE', first: 'Ann' },
    ]);
    expect(readdirSync(lake).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('overwrite replaces the dataset; relational shape writes child datasets', async () => {
    const dir = tempDir();
    const options = { path: 'lake', table: 'conversations', shape: 'relational' };
    for (const ids of [['c1', 'c2'], ['c3']]) {
      const writer = await openWriter(parquet, options, dir);
      await writer.write(batch(ids.map((id) => call(id, '2024-03-01T09:00:00.000Z'))));
      await writer.close();
    }
    const lake = join(dir, 'lake');
    expect(readdirSync(lake).sort()).toEqual(['conversation_participants', 'conversation_transcript', 'conversations']);
    expect(
      await query(`SELECT c.conversationId, t.speaker, t.position::INT AS p FROM '${lake}/conversations/*.parquet' c
                   JOIN '${lake}/conversation_transcript/*.parquet' t USING (conversationId) ORDER BY p`),
    ).toEqual([
      { conversationId: 'c3', speaker: 'Ann', p: 0 },
      { conversationId: 'c3', speaker: 'Bob', p: 1 },
    ]);
  });

  it('an aborted export moves nothing into place and leaves no scratch files', async () => {
    const dir = tempDir();
    const writer = await openWriter(parquet, { path: 'lake', table: 'conversations' }, dir);
    await writer.write(batch([call('c1', '2024-03-01T09:00:00.000Z')]));
    await writer.abort?.('stopped');
    expect(existsSync(join(dir, 'lake', 'conversations'))).toBe(false);
    expect(readdirSync(join(dir, 'lake'))).toEqual([]);
  });

  it('removes the scratch folder a killed run left a day ago, and keeps a fresh one', async () => {
    const dir = tempDir();
    const stale = join(dir, 'lake', '.ferry-killed');
    const fresh = join(dir, 'lake', '.ferry-running');
    mkdirSync(stale, { recursive: true });
    mkdirSync(fresh);
    const dayAndMinuteAgo = new Date(Date.now() - 24 * 3_600_000 - 60_000);
    utimesSync(stale, dayAndMinuteAgo, dayAndMinuteAgo);
    const ctx = contextFor(parquet, { path: 'lake', table: 'conversations' }, dir);
    const writer = await parquet.open(ctx);
    await writer.abort?.('stopped');
    expect(readdirSync(join(dir, 'lake'))).toEqual(['.ferry-running']);
    expect(ctx.warnings).toEqual([expect.objectContaining({ folder: stale })]);
  });

  it('names the missing field when the partition field is not in the records, and moves nothing', async () => {
    const dir = tempDir();
    const writer = await openWriter(parquet, { path: 'lake', table: 'conversations', partition: { field: 'startedAt', by: 'day' } }, dir);
    await writer.write(batch([call('c1', '2024-03-01T09:00:00.000Z')]));
    await expect(writer.close()).rejects.toMatchObject({ code: 'FERRY_DESTINATION_WRITE_FAILED', message: expect.stringContaining('"startedAt"') });
    expect(readdirSync(join(dir, 'lake'))).toEqual([]);
  });
});
