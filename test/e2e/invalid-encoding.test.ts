/**
 * A CSV with bytes that are not valid UTF-8 no longer becomes U+FFFD
 * silently: `replace` (the default) counts the lines and warns once per file
 * with their numbers, `reject` stops naming file:line, and a declared
 * encoding is honoured.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

/** Lines 3 and 5 hold latin1 bytes (é, ï, ÿ): not valid UTF-8. */
const LATIN1 = iconv.encode('id,name\n1,ann\n2,café\n3,bob\n4,naïveÿ\n', 'latin1');

function project(source: string): string {
  const dir = tempProjectDir('ferry-encoding-');
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data/people.csv'), LATIN1);
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: { baseUrl: embedded }
state: { url: sqlite:state/ferry.db }
emulator: { db: state/emulator.db }
syncs:
  - name: people
    source: { type: csv, path: data/people.csv, primaryKey: id${source} }
    target:
      type: row
      source: { name: crm }
      objectType: { name: person }
      map: { id: id, name: name, public: true, fields: { name: name } }
`,
  );
  return dir;
}

describe('invalid UTF-8 in a CSV', () => {
  it('replace (default): counts the lines as repaired (once: they are read) and warns once with their numbers', async () => {
    const run = await ferry(['run', '--json'], { cwd: project('') });
    expect(run.code).toBe(0);
    const summary = jsonOf(run) as { syncs: { counts: { read: number; skipped: number } }[] };
    expect(summary.syncs[0]?.counts).toMatchObject({ read: 4, skipped: 0, repaired: 2 });
    const warnings = run.stderr.split('\n').filter((line) => line.includes('not valid utf8'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('data/people.csv: 2 line(s)');
    expect(warnings[0]).toContain('line 3, 5');
  });

  it('reject: stops at the first such line, naming file and line', async () => {
    const run = await ferry(['run'], { cwd: project(', onInvalidEncoding: reject') });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('data/people.csv:3: bytes that are not valid utf8');
  });

  it('a declared encoding is honoured', async () => {
    const preview = await ferry(['preview', 'people', '--json'], { cwd: project(', encoding: latin1') });
    expect(preview.code).toBe(0);
    const { samples, plan } = jsonOf(preview) as { samples: { body?: { name?: string } }[]; plan: { counts: { skipped: number } } };
    expect(samples.map((s) => s.body?.name)).toEqual(['ann', 'café', 'bob', 'naïveÿ']);
    expect(plan.counts.skipped).toBe(0);
    expect(preview.stderr).not.toContain('not valid');
  });
});
