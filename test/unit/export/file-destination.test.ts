import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
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

  it('warns once about fields outside the header of the CSV file it appends to', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.csv'), 'dealId\nold\n');
    const ctx = contextFor(file, { path: 'x.csv', mode: 'append' }, dir);
    const writer = await file.open(ctx);
    await writer.write(batch([{ dealId: 'a' }]));
    await writer.write(batch([{ dealId: 'b', late: 1 }]));
    await writer.write(batch([{ dealId: 'c', late: 2 }]));
    await writer.close();
    expect(ctx.warnings).toHaveLength(1);
    expect(JSON.stringify(ctx.warnings[0])).toContain('late');
    expect(readFileSync(join(dir, 'x.csv'), 'utf8')).toBe('dealId\nold\na\nb\nc\n');
  });

  it('gives an inferred CSV header every field any record had, rows of other shapes left empty there (read by Python\'s csv)', async () => {
    const dir = tempDir();
    const ctx = contextFor(file, { path: 'rows.csv' }, dir);
    const writer = await file.open(ctx);
    // Rows of two object types, as an export of rows flattens them: each type's fields are columns of its own.
    const deal = (id: string, stage: string) => ({ rowId: id, name: `Deal ${id}`, fields: { stage: { value: stage, fieldType: 'string' } } });
    const ticket = (id: string, priority: number) => ({ rowId: id, name: `Ticket ${id}`, fields: { priority: { value: priority, fieldType: 'integer' } }, note: 'a, "quoted"\nline' });
    await writer.write(batch([deal('d1', 'Won'), deal('d2', 'Lost')]));
    await writer.flush?.();
    await writer.write(batch([ticket('t1', 2)]));
    await writer.write(batch([deal('d3', 'Engaging')]));
    expect(readdirSync(dir).filter((name) => name.endsWith('.rows'))).toHaveLength(1);
    await writer.close();
    expect(ctx.warnings).toEqual([]);
    expect(readdirSync(dir)).toEqual(['rows.csv']);
    const script = 'import csv,json,sys\nprint(json.dumps(list(csv.DictReader(open(sys.argv[1], newline="")))))';
    const rows = JSON.parse(execFileSync('python3', ['-c', script, join(dir, 'rows.csv')], { encoding: 'utf8' })) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['rowId', 'name', 'fields.stage.value', 'fields.stage.fieldType', 'fields.priority.value', 'fields.priority.fieldType', 'note']);
    expect(rows.map((row) => [row.rowId, row['fields.stage.value'], row['fields.priority.value'], row.note])).toEqual([
      ['d1', 'Won', '', ''],
      ['d2', 'Lost', '', ''],
      ['t1', '', '2', 'a, "quoted"\nline'],
      ['d3', 'Engaging', '', ''],
    ]);
  });

  it('writes nothing and leaves no spool behind when an export with an inferred CSV header is aborted', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'out.csv.gz'), gzipSync('dealId\nold\n'));
    const writer = await openWriter(file, { path: 'out.csv.gz' }, dir);
    await writer.write(batch([{ dealId: 'new', extra: 1 }]));
    await writer.abort?.(new Error('service lost'));
    expect(gunzipSync(readFileSync(join(dir, 'out.csv.gz'))).toString()).toBe('dealId\nold\n');
    expect(readdirSync(dir)).toEqual(['out.csv.gz']);
  });

  it('starts a new CSV file in append mode with the whole header, gzipped', async () => {
    const dir = tempDir();
    const writer = await openWriter(file, { path: 'new.csv.gz', mode: 'append' }, dir);
    await writer.write(batch([{ dealId: 'a' }]));
    await writer.write(batch([{ dealId: 'b', late: 1 }]));
    await writer.close();
    expect(gunzipSync(readFileSync(join(dir, 'new.csv.gz'))).toString()).toBe('dealId,late\na,\nb,1\n');
    // Beside it, only where the run ended (what a later append cuts a killed run back to).
    expect(readdirSync(dir).sort()).toEqual(['.new.csv.gz.ferry-end', 'new.csv.gz']);
  });

  it('removes the temporary files a killed run left beside the file, and says so once', async () => {
    const dir = tempDir();
    for (const name of ['.out.csv.deadbeef.rows', '.out.csv.0123abcd.tmp', '.out.csv.notes', '.other.csv.deadbeef.rows']) writeFileSync(join(dir, name), 'x');
    const ctx = contextFor(file, { path: 'out.csv' }, dir);
    const writer = await file.open(ctx);
    await writer.write(batch([{ dealId: 'a' }]));
    await writer.close();
    expect(readdirSync(dir).sort()).toEqual(['.other.csv.deadbeef.rows', '.out.csv.notes', 'out.csv']);
    expect(ctx.warnings).toHaveLength(1);
    expect(JSON.stringify(ctx.warnings[0])).toContain('.out.csv.deadbeef.rows');
  });

  it('deletes: soft on an appended JSON Lines file: a tombstone copies the newest line of each record no longer listed, once', async () => {
    const dir = tempDir();
    const line = (record: Record<string, unknown>) => `${JSON.stringify(record)}\n`;
    writeFileSync(
      join(dir, 'deals.jsonl'),
      line({ dealId: 'a', stage: 'Won', _ferry_deleted_at: null }) +
        line({ dealId: 'b', stage: 'Open', _ferry_deleted_at: null }) +
        line({ dealId: 'c', stage: 'Lost', _ferry_deleted_at: '2026-01-01T00:00:00.000Z' }) +
        line({ dealId: 'b', stage: 'Won', _ferry_deleted_at: null, _ferry_loaded_at: '2026-01-02T00:00:00.000Z', _ferry_load_id: 'run-1' }) +
        '\n' +
        line({ stage: 'no key' }),
    );
    const writer = await openWriter(file, { path: 'deals.jsonl', mode: 'append' }, dir);
    expect(writer.retainModes).toEqual(['soft']);
    await writer.write(batch([{ dealId: 'a', stage: 'Won', _ferry_deleted_at: null }]));
    const deletedAt = '2026-02-01T00:00:00.000Z';
    // a is listed; b's newest line is live and b is not listed; c is gone already.
    expect(await writer.retain!({ stream: 'deals', key: 'dealId', keys: new Set(['a']), mode: 'soft', deletedAt, loadId: 'run-2' })).toBe(1);
    await writer.close();
    const lines = readFileSync(join(dir, 'deals.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(8);
    expect(JSON.parse(lines.at(-1)!)).toEqual({ dealId: 'b', stage: 'Won', _ferry_deleted_at: deletedAt, _ferry_loaded_at: deletedAt, _ferry_load_id: 'run-2' });

    const again = await openWriter(file, { path: 'deals.jsonl', mode: 'append' }, dir);
    expect(await again.retain!({ stream: 'deals', key: 'dealId', keys: new Set(['a']), mode: 'soft', deletedAt, loadId: 'run-3' })).toBe(0);
    await again.close();
  });

  it('says which line of an appended JSON Lines file is not JSON when deletes: soft must read it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'deals.jsonl'), '{"dealId":"a"}\n{"dealId":"b","stage":"Wo\n');
    const writer = await openWriter(file, { path: 'deals.jsonl', mode: 'append' }, dir);
    await expect(writer.retain!({ stream: 'deals', key: 'dealId', keys: new Set(['a']), mode: 'soft', deletedAt: 'now' })).rejects.toThrow(/deals\.jsonl:2 is not a JSON line/);
    await writer.abort?.(new Error('failed'));
    expect(readFileSync(join(dir, 'deals.jsonl'), 'utf8')).toBe('{"dealId":"a"}\n{"dealId":"b","stage":"Wo\n');
  });

  it('offers no deletes to an overwritten file or an appended CSV file', async () => {
    const dir = tempDir();
    for (const options of [{ path: 'x.jsonl' }, { path: 'x.csv', mode: 'append' }]) {
      const writer = await openWriter(file, options, dir);
      expect(writer.retain).toBeUndefined();
      await writer.abort?.(new Error('done'));
    }
  });

  it('removes the partial last line a killed run left in an appended JSON Lines file, and says so', async () => {
    const dir = tempDir();
    const whole = '{"dealId":"a"}\n{"dealId":"b"}\n';
    const partial = '{"dealId":"c","stage":"Wo';
    writeFileSync(join(dir, 'deals.jsonl'), whole + partial);
    const ctx = contextFor(file, { path: 'deals.jsonl', mode: 'append' }, dir);
    const writer = await file.open(ctx);
    await writer.write(batch([{ dealId: 'c', stage: 'Won' }]));
    await writer.close();
    expect(readFileSync(join(dir, 'deals.jsonl'), 'utf8')).toBe(`${whole}{"dealId":"c","stage":"Won"}\n`);
    expect(ctx.warnings).toEqual([expect.objectContaining({ bytes: partial.length })]);
    // A file of one partial line is emptied; a whole file is left as it is.
    writeFileSync(join(dir, 'cut.jsonl'), 'x'.repeat(70_000));
    await (await openWriter(file, { path: 'cut.jsonl', mode: 'append' }, dir)).close();
    expect(readFileSync(join(dir, 'cut.jsonl'), 'utf8')).toBe('');
    await (await openWriter(file, { path: 'deals.jsonl', mode: 'append' }, dir)).close();
    expect(readFileSync(join(dir, 'deals.jsonl'), 'utf8')).toBe(`${whole}{"dealId":"c","stage":"Won"}\n`);
  });

  it('cuts what a killed run appended back to where the last finished run ended: no record twice, no line cut short', async () => {
    const dir = tempDir();
    const finished = await openWriter(file, { path: 'deals.jsonl', mode: 'append' }, dir);
    await finished.write(batch([{ dealId: 'a' }, { dealId: 'b' }]));
    await finished.close();
    // A run killed after one whole batch and part of the next: its writer is never closed.
    const killed = await openWriter(file, { path: 'deals.jsonl', mode: 'append' }, dir);
    await killed.write(batch([{ dealId: 'c' }]));
    await killed.flush?.();
    appendFileSync(join(dir, 'deals.jsonl'), '{"dealId":"d","st');
    const ctx = contextFor(file, { path: 'deals.jsonl', mode: 'append' }, dir);
    const again = await file.open(ctx);
    await again.write(batch([{ dealId: 'c' }, { dealId: 'd' }]));
    await again.close();
    expect(readFileSync(join(dir, 'deals.jsonl'), 'utf8')).toBe('{"dealId":"a"}\n{"dealId":"b"}\n{"dealId":"c"}\n{"dealId":"d"}\n');
    expect(ctx.warnings).toEqual([expect.objectContaining({ bytes: '{"dealId":"c"}\n{"dealId":"d","st'.length })]);
  });

  it('cuts a gzip member a killed run left short, so the file stays one stream every gzip reader reads whole', async () => {
    const dir = tempDir();
    const path = join(dir, 'deals.jsonl.gz');
    const finished = await openWriter(file, { path: 'deals.jsonl.gz', mode: 'append' }, dir);
    await finished.write(batch([{ dealId: 'a' }]));
    await finished.close();
    const member = gzipSync('{"dealId":"b"}\n{"dealId":"c"}\n');
    appendFileSync(path, Buffer.concat([member, member.subarray(0, member.length - 9)]));
    expect(() => gunzipSync(readFileSync(path))).toThrow();
    const again = await openWriter(file, { path: 'deals.jsonl.gz', mode: 'append' }, dir);
    await again.write(batch([{ dealId: 'b' }]));
    await again.close();
    expect(execFileSync('python3', ['-c', 'import gzip,sys; sys.stdout.write(gzip.open(sys.argv[1], "rt").read())', path], { encoding: 'utf8' })).toBe('{"dealId":"a"}\n{"dealId":"b"}\n');
  });

  it('cuts back a run killed before any run of the file finished, gzipped or not', async () => {
    const dir = tempDir();
    for (const name of ['first.jsonl', 'first.jsonl.gz']) {
      // The first run ever: killed after one batch (and, gzipped, with its next member cut short).
      const killed = await openWriter(file, { path: name, mode: 'append' }, dir);
      await killed.write(batch([{ dealId: 'a' }]));
      await killed.flush?.();
      if (name.endsWith('.gz')) appendFileSync(join(dir, name), gzipSync('{"dealId":"b"}\n').subarray(0, 12));
      const again = await openWriter(file, { path: name, mode: 'append' }, dir);
      await again.write(batch([{ dealId: 'a' }, { dealId: 'b' }]));
      await again.close();
      const bytes = readFileSync(join(dir, name));
      expect((name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString()).toBe('{"dealId":"a"}\n{"dealId":"b"}\n');
    }
  });

  it('removes a gzip member cut short from a file appended to before ends were recorded', async () => {
    const dir = tempDir();
    const path = join(dir, 'old.jsonl.gz');
    const member = gzipSync('{"dealId":"b"}\n');
    writeFileSync(path, Buffer.concat([gzipSync('{"dealId":"a"}\n'), member.subarray(0, member.length - 5)]));
    const ctx = contextFor(file, { path: 'old.jsonl.gz', mode: 'append' }, dir);
    const writer = await file.open(ctx);
    await writer.write(batch([{ dealId: 'b' }]));
    await writer.close();
    expect(gunzipSync(readFileSync(path)).toString()).toBe('{"dealId":"a"}\n{"dealId":"b"}\n');
    expect(ctx.warnings).toEqual([expect.objectContaining({ bytes: member.length - 5 })]);
  });

  it('leaves a file changed since ferry last appended to it as it is, and says so', async () => {
    const dir = tempDir();
    const finished = await openWriter(file, { path: 'deals.jsonl', mode: 'append' }, dir);
    await finished.write(batch([{ dealId: 'a' }, { dealId: 'b' }]));
    await finished.close();
    // Rewritten by hand: other bytes before the recorded end, and longer than it.
    writeFileSync(join(dir, 'deals.jsonl'), '{"dealId":"x"}\n{"dealId":"y"}\n{"dealId":"z"}\n');
    const ctx = contextFor(file, { path: 'deals.jsonl', mode: 'append' }, dir);
    const again = await file.open(ctx);
    await again.write(batch([{ dealId: 'c' }]));
    await again.close();
    expect(readFileSync(join(dir, 'deals.jsonl'), 'utf8')).toBe('{"dealId":"x"}\n{"dealId":"y"}\n{"dealId":"z"}\n{"dealId":"c"}\n');
    expect(ctx.warnings).toEqual([expect.objectContaining({ recordedBytes: 30, bytes: 45 })]);
    // Overwritten whole, the file has no end to cut back to.
    await (await openWriter(file, { path: 'deals.jsonl' }, dir)).close();
    expect(readdirSync(dir)).toEqual(['deals.jsonl']);
  });

  it('rejects columns on a JSONL file', () => {
    expect(file.options.safeParse({ path: 'x.jsonl', columns: ['a'] }).success).toBe(false);
  });
});
