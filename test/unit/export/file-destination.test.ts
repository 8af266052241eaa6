import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import file from '../../../connectors/destinations/file/index.js';
import { contextFor, openWriter, tempDir } from './helpers.js';

const batch = (records: Record<string, unknown>[]) => ({ stream: 'deals', records, key: 'dealId' });

describe('file destination', () => {
  it('overwrites atomically: nothing changes until close, then the new content replaces the old', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'out.jsonl'), 'old\n');
    const writer = await openWriter(file, { path: 'out.jsonl' }, dir);
    await writer.write(batch([{ dealId: 'a', n: 1 }]));
    await writer.flush?.();
    expect(readFileSync(join(dir, 'out.jsonl'), 'utf8')).toBe('old\n');
    await writer.write(batch([{ dealId: 'b', n: 2 }]));
    await writer.close();
    expect(readFileSync(join(dir, 'out.jsonl'), 'utf8')).toBe('{"dealId":"a","n":1}\n{"dealId":"b","n":2}\n');
    expect(readdirSync(dir)).toEqual(['out.jsonl']);
  });

  it('leaves the old file intact and no temporary file behind when the export is aborted', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'out.csv'), 'dealId\nold\n');
    const writer = await openWriter(file, { path: 'out.csv' }, dir);
    await writer.write(batch([{ dealId: 'new' }]));
    await writer.abort?.(new Error('service lost'));
    expect(readFileSync(join(dir, 'out.csv'), 'utf8')).toBe('dealId\nold\n');
    expect(readdirSync(dir)).toEqual(['out.csv']);
  });

  it('creates missing folders relative to the YAML file', async () => {
    const dir = tempDir();
    const writer = await openWriter(file, { path: 'a/b/out.jsonl' }, dir);
    await writer.close();
    expect(existsSync(join(dir, 'a/b/out.jsonl'))).toBe(true);
  });

  it('appends CSV under the header already in the file, whatever the batch order of keys', async () => {
    const dir = tempDir();
    const first = await openWriter(file, { path: 'deals.csv', mode: 'append' }, dir);
    await first.write(batch([{ dealId: 'a', owner: { name: 'Ann' }, amount: 1 }]));
    await first.close();
    const second = await openWriter(file, { path: 'deals.csv', mode: 'append' }, dir);
    await second.write(batch([{ amount: 2, dealId: 'b', owner: { name: 'Bo, Jr.' } }]));
    await second.close();
    expect(readFileSync(join(dir, 'deals.csv'), 'utf8')).toBe('dealId,owner.name,amount\na,Ann,1\nb,"Bo, Jr.",2\n');
  });

  it('refuses to append under a header that differs from destination.columns', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'deals.csv'), 'x,y\n1,2\n');
    await expect(openWriter(file, { path: 'deals.csv', mode: 'append', columns: ['dealId'] }, dir)).rejects.toMatchObject({
      code: 'FERRY_DESTINATION_WRITE_FAILED',
    });
  });

  it('gzips when the name ends in .gz, one member per batch, readable as one stream', async () => {
    const dir = tempDir();
    const writer = await openWriter(file, { path: 'deals.csv.gz', columns: ['dealId', 'owner.name'] }, dir);
    await writer.write(batch([{ dealId: 'a', owner: { name: 'Ann' } }]));
    await writer.write(batch([{ dealId: 'b', owner: null }]));
    await writer.close();
    expect(gunzipSync(readFileSync(join(dir, 'deals.csv.gz'))).toString('utf8')).toBe('dealId,owner.name\na,Ann\nb,\n');
  });

  it('writes the header of an empty CSV export when the columns are listed', async () => {
    const dir = tempDir();
    const writer = await openWriter(file, { path: 'empty.csv', columns: ['dealId', 'name'] }, dir);
    await writer.close();
    expect(readFileSync(join(dir, 'empty.csv'), 'utf8')).toBe('dealId,name\n');
  });

  it('warns once about fields outside an inferred CSV header', async () => {
    const dir = tempDir();
    const ctx = contextFor(file, { path: 'x.csv' }, dir);
    const writer = await file.open(ctx);
    await writer.write(batch([{ dealId: 'a' }]));
    await writer.write(batch([{ dealId: 'b', late: 1 }]));
    await writer.write(batch([{ dealId: 'c', late: 2 }]));
    await writer.close();
    expect(ctx.warnings).toHaveLength(1);
    expect(JSON.stringify(ctx.warnings[0])).toContain('late');
  });

  it('rejects columns on a JSONL file', () => {
    expect(file.options.safeParse({ path: 'x.jsonl', columns: ['a'] }).success).toBe(false);
  });
});
