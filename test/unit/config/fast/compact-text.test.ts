import path from 'node:path';
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { loadConfig } from '../../../../src/config/index.js';
import { compactScalars, compactString } from '../../../../src/config/fast/compact-text.js';
import { SALES_PIPELINE, project } from '../fixtures.js';

/** Whether V8 holds `text` two bytes a character (the serializer's tag for a two-byte string is 'c'). */
const wide = (text: string): boolean => serialize(text)[2] === 'c'.charCodeAt(0);

/** A string of `text`'s characters cut from a two-byte one, as a parser cuts names from a file holding a dash. */
const cutFromWide = (text: string): string => `–${text}`.slice(1);

// Names no other test uses: the first form a name is interned in is the one every later copy gets.
describe('the config\'s text, one byte a character where it can be', () => {
  it('a string cut from a two-byte one is copied to one byte, and its text kept', () => {
    const cut = cutFromWide('deals-compact-1 é');
    expect(wide(cut)).toBe(true);
    const compact = compactString(cut);
    expect(compact).toBe('deals-compact-1 é');
    expect(wide(compact)).toBe(false);
  });

  it('a string with a character past Latin-1 stays as it is', () => {
    const text = 'a – b';
    expect(compactString(text)).toBe(text);
    expect(wide(compactString(text))).toBe(true);
  });

  it('every scalar of a document, keys included, before it becomes plain data', () => {
    const text = 'note: "–"\nzq_sync_compact: deals\nzq_map_compact: { zq_field_compact: zq_column_compact }\n';
    const plain = parseDocument(text).toJS() as Record<string, Record<string, string>>;
    // Without it, the parser's names keep the file's two-byte form (so this test can tell).
    expect(wide(Object.keys(plain).find((k) => k.startsWith('zq_map'))!)).toBe(true);

    const document = parseDocument(text.replaceAll('zq_', 'zr_'));
    compactScalars(document);
    const value = document.toJS() as Record<string, Record<string, string>>;
    expect(value).toEqual({ note: '–', zr_sync_compact: 'deals', zr_map_compact: { zr_field_compact: 'zr_column_compact' } });
    expect(Object.keys(value).filter(wide)).toEqual([]);
    expect(wide(value.note as unknown as string)).toBe(true);
    expect(wide(Object.keys(value.zr_map_compact!)[0]!)).toBe(false);
    expect(wide(value.zr_map_compact!.zr_field_compact!)).toBe(false);
  });

  it('a loaded sync\'s name and map keys are one byte a character when its file holds a dash', async () => {
    const dir = await project({
      'ferry.yaml': `version: 1
syncs:
  - name: zq-deals-compact
    source: { type: csv, path: ${SALES_PIPELINE}, primaryKey: opportunity_id }
    target:
      type: row
      source: { name: crm }
      objectType: { name: deal }
      map:
        id: opportunity_id
        name: "account & ' – ' & product"
        fields: { zq_stage_compact: deal_stage }
`,
    });
    const config = await loadConfig(path.join(dir, 'ferry.yaml'), { env: {} });
    const sync = config.syncs[0]!;
    expect(sync.name).toBe('zq-deals-compact');
    expect(wide(sync.name)).toBe(false);
    const fields = (sync.target.map as { fields: Record<string, string> }).fields;
    expect(Object.keys(fields)).toEqual(['zq_stage_compact']);
    expect(wide(Object.keys(fields)[0]!)).toBe(false);
    // The expression holds the dash: its text is kept as written.
    expect((sync.target.map as { name: string }).name).toBe("account & ' – ' & product");
  });
});
