import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import slack from '../../../connectors/sources/slack-export/index.js';
import { unsafePath } from '../../../connectors/sources/slack-export/archive.js';
import { describeSourceConformance, isFerryError } from '../../../src/sdk/index.js';
import type { SkippedInput } from '../../../src/sdk/index.js';
import { readAll, rejection } from './helpers.js';

const SLACK = resolve(import.meta.dirname, '../../fixtures/slack');

await describeSourceConformance(slack, { options: { path: 'export.zip' }, baseDir: SLACK, expectedCount: 9, primaryKey: ['id'], cursorField: 'date' });

describe('slack-export source', () => {
  it('reads the same messages from the folder and from the zip (wrapped in a top folder)', async () => {
    const fromZip = await readAll(slack, { path: 'export.zip' }, { baseDir: SLACK });
    const fromFolder = await readAll(slack, { path: 'export' }, { baseDir: SLACK });
    expect(fromFolder.map((r) => r.data)).toEqual(fromZip.map((r) => r.data));
  });

  it('resolves authors, keeps the last text of an edit, threads replies, attaches files and skips (counting) events and deletions', async () => {
    const captured = { warnings: [] as string[], skipped: [] as SkippedInput[] };
    const records = await readAll(slack, { path: 'export', channels: ['general'] }, { baseDir: SLACK, captured });
    const byText = new Map(records.map((r) => [r.data.text, r.data]));
    expect(byText.get('Morning! Standup in 5.')).toMatchObject({ sender: { id: 'slack:U01ANA', name: 'Ana Lima', email: 'ana@example.org' }, recipients: [{ id: 'slack:U02BO', email: 'bo@example.org' }], threadId: 'C01GEN/1714550400.000200', date: '2024-05-01T08:00:00.000Z' });
    expect(byText.get('On my way')).toMatchObject({ threadId: 'C01GEN/1714550400.000200' });
    expect(byText.get('Lunch at 12:30?')).toMatchObject({ edited: '2024-05-01T08:21:40.000Z' });
    expect(byText.has('Lunch at 12?')).toBe(false);
    expect(byText.get('Notes attached')?.attachments).toEqual([{ name: 'notes.txt', url: 'https://files.slack.com/files-pri/T1-F01/notes.txt', mimeType: 'text/plain', sizeBytes: 42 }]);
    expect(captured.skipped.map((s) => [s.origin.file, s.origin.line, s.reason.replace(/ \(.*/, '')])).toEqual([
      ['export:general/2024-05-01.json', 1, 'message 1714550000.000100 is a channel event, channel_join'],
      ['export:general/2024-05-01.json', 8, 'message 1714552100.000800 was deleted'],
    ]);
  });

  it('keeps bots, deletions and events when asked, or skips bots', async () => {
    const kept = await readAll(slack, { path: 'export', channels: ['general'], deleted: 'keep', events: 'keep' }, { baseDir: SLACK });
    expect(kept.map((r) => r.data.text)).toContain('(deleted)');
    expect(kept.map((r) => r.data.subtype)).toContain('channel_join');
    const noBots = await readAll(slack, { path: 'export', channels: ['general'], bots: 'skip' }, { baseDir: SLACK });
    expect(noBots.map((r) => r.data.text)).not.toContain('Deployed v1.2.3');
  });

  it('cuts a channel-day longer than 10 hours into conversation parts', async () => {
    const records = await readAll(slack, { path: 'export', channels: ['general'] }, { baseDir: SLACK });
    expect([...new Set(records.map((r) => r.data.conversation))]).toEqual(['C01GEN/2024-05-01', 'C01GEN/2024-05-01#part2', 'C01GEN/2024-05-02']);
  });

  it('refuses entries that climb out, absolute paths and bombs, counting each, and reads the rest', async () => {
    const captured = { warnings: [] as string[], skipped: [] as SkippedInput[] };
    const records = await readAll(slack, { path: 'malicious.zip' }, { baseDir: SLACK, captured });
    expect(records.map((r) => r.data.text)).toEqual(['Anyone seen the Q2 plan?', 'In the drive']);
    expect(captured.skipped.map((s) => [s.origin.file, s.reason])).toEqual([
      ['malicious.zip:../escape.json', expect.stringMatching(/climbs out/)],
      ['malicious.zip:/etc/abs.json', expect.stringMatching(/absolute/)],
      ['malicious.zip:general/2024-05-02.json', expect.stringMatching(/zip bomb/)],
    ]);
    expect(unsafePath('C:\\x.json')).toMatch(/absolute/);
    expect(unsafePath('general/2024-05-01.json')).toBeUndefined();
  });

  it('refuses a whole archive over maxEntries or maxTotalBytes, and one that is not a zip', async () => {
    for (const limit of [{ maxEntries: 3 }, { maxTotalBytes: 100 }]) {
      const error = await rejection(readAll(slack, { path: 'export.zip', ...limit }, { baseDir: SLACK }));
      expect(isFerryError(error) && error.code).toBe('FERRY_SOURCE_READ_FAILED');
      expect((error as Error).message).toMatch(/was not read/);
    }
    const notZip = await rejection(readAll(slack, { path: 'export/users.json' }, { baseDir: SLACK }));
    expect((notZip as Error).message).toMatch(/not a readable zip/);
  });
});
