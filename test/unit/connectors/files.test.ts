import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import files from '../../../connectors/sources/files/index.js';
import { describeSourceConformance, isFerryError } from '../../../src/sdk/index.js';
import { readAll, rejection, tempDir, type Captured } from './helpers.js';

const DOCUMENTS = '/work/shared/datasets/documents';

describe('files source on the shared documents', () => {
  it('reads every handbook page with its text and base64 content, in path order', async () => {
    const records = await readAll(files, { path: '18f-handbook/pages/**/*.md' }, { baseDir: DOCUMENTS });
    expect(records).toHaveLength(35);
    const paths = records.map((r) => String(r.data.path));
    expect(paths).toEqual([...paths].sort());
    for (const record of records) {
      expect(record.data.contentType).toBe('text/markdown');
      expect(Buffer.from(String(record.data.content), 'base64').toString('utf8')).toBe(record.data.text);
      expect(record.origin).toMatchObject({ file: record.data.path, line: 1, key: record.data.path });
    }
  });

  it('takes several globs and types plain text by extension', async () => {
    const records = await readAll(files, { path: ['rfc/rfc4180.txt', '18f-handbook/LICENSE.md'] }, { baseDir: DOCUMENTS });
    expect(records.map((r) => [r.data.name, r.data.contentType])).toEqual([
      ['LICENSE.md', 'text/markdown'],
      ['rfc4180.txt', 'text/plain'],
    ]);
    expect(records[1]?.data.size).toBe(readFileSync(join(DOCUMENTS, 'rfc/rfc4180.txt')).length);
  });

  it('yields a file over maxBytes without content, with a warning', async () => {
    const captured: Captured = { warnings: [] };
    const records = await readAll(files, { path: 'rfc/rfc5322.txt', maxBytes: 1000 }, { baseDir: DOCUMENTS, captured });
    expect(records[0]?.data).toMatchObject({ content: '', text: '' });
    expect(captured.warnings).toEqual(['file larger than maxBytes; yielded without content']);
  });

  it('gives binary files content but no text', async () => {
    const dir = tempDir('files');
    writeFileSync(join(dir, 'scan.pdf'), Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff, 0x00]));
    const [record] = await readAll(files, { path: '*.pdf' }, { baseDir: dir });
    expect(record?.data).toMatchObject({ contentType: 'application/pdf', text: null, content: 'JVBERv8A' });
  });

  it('fails with FERRY_SOURCE_OBJECT_MISSING when nothing matches', async () => {
    const error = await rejection(readAll(files, { path: 'nothing/*.md' }, { baseDir: DOCUMENTS }));
    expect(isFerryError(error, 'FERRY_SOURCE_OBJECT_MISSING')).toBe(true);
  });
});

await describeSourceConformance(files, {
  title: 'files conformance: RFC plain-text files',
  options: { path: 'rfc/*.txt' },
  baseDir: DOCUMENTS,
  expectedCount: 3,
  primaryKey: ['path'],
  cursorField: 'modifiedAt',
});
