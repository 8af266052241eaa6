/**
 * `ferry export` as a user runs it: a project whose embedded emulator is
 * seeded with native CRM deals and meetings, exported to a CSV file, a
 * SQLite table and DuckDB tables in one process.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ferry, jsonOf, tempProjectDir } from './spawn-ferry.js';

describe('ferry export', () => {
  it('exports seeded deals to CSV and meetings with transcripts to SQLite, printing a JSON summary', async () => {
    const dir = tempProjectDir('ferry-e2e-export-');
    const seed = {
      deals: Array.from({ length: 70 }, (_, i) => ({
        dealId: `D-${i}`,
        name: `Deal ${i}`,
        accountName: i % 2 ? 'Acme, Inc.' : 'Globex',
        stage: i % 5 === 0 ? 'Won' : 'Negotiation',
        amount: 1000 + i,
        owner: { name: 'Ann Lee', email: 'ann@example.com' },
        lastActivityDate: `2024-02-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`,
      })),
      conversations: [
        { title: 'Discovery call', startTime: '2024-03-01T09:00:00Z', participants: [{ name: 'Ann', email: 'ann@example.com' }], transcript: [{ speaker: 'Ann', text: 'Thanks for joining', startTime: 0 }, { speaker: 'Bo', text: 'Happy to be here', startTime: 3 }] },
        { title: 'Demo', startTime: '2024-03-02T09:00:00Z', participants: [{ name: 'Ann', email: 'ann@example.com' }], transcript: [{ speaker: 'Ann', text: 'Here is the product', startTime: 0 }] },
      ],
    };
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service: { baseUrl: embedded }
emulator: { db: ":memory:", seed: seed.json }
state: { url: sqlite:state/ferry.db }
exports:
  - name: won-deals
    resource: deals
    naming: api
    metadata: false
    filters: { stage: won }
    destination: { type: file, path: out/won-deals.csv }
  - name: meetings
    resource: conversations
    naming: api
    metadata: false
    details: true
    incremental: { cursor: startTime }
    destination: { type: sqlite-table, path: out/warehouse.db, table: meetings }
  - name: meetings-duckdb
    resource: conversations
    naming: api
    metadata: false
    details: true
    destination: { type: duckdb, path: out/warehouse.duckdb, table: conversations, shape: relational }
`,
    );

    const result = await ferry(['export', '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = jsonOf(result) as { exports: { export: string; status: string; exported: number; exitCode: number; cursor: { value: string } | null }[] };
    expect(report.exports.map((e) => [e.export, e.status, e.exported, e.exitCode])).toEqual([
      ['won-deals', 'succeeded', 14, 0],
      ['meetings', 'succeeded', 2, 0],
      ['meetings-duckdb', 'succeeded', 2, 0],
    ]);
    expect(report.exports[1]!.cursor?.value).toMatch(/^2024-03-02T09:00:00/);

    const csv = readFileSync(join(dir, 'out/won-deals.csv'), 'utf8').trim().split('\n');
    expect(csv).toHaveLength(15);
    expect(csv[0]).toContain('owner.email');
    expect(csv.find((line) => line.startsWith('D-5,'))).toContain('"Acme, Inc."');

    const db = new Database(join(dir, 'out/warehouse.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT title, transcript FROM meetings ORDER BY startTime').all() as { title: string; transcript: string }[];
      expect(rows.map((r) => r.title)).toEqual(['Discovery call', 'Demo']);
      expect(JSON.parse(rows[0]!.transcript)).toEqual([
        expect.objectContaining({ speaker: 'Ann', text: 'Thanks for joining' }),
        expect.objectContaining({ speaker: 'Bo', text: 'Happy to be here' }),
      ]);
    } finally {
      db.close();
    }

    const duck = await DuckDBInstance.create(join(dir, 'out/warehouse.duckdb'), { access_mode: 'READ_ONLY' });
    const connection = await duck.connect();
    try {
      const lines = await connection.runAndReadAll(
        'SELECT c.title, t.speaker, t.text FROM conversations c JOIN conversation_transcript t USING (conversationId) ORDER BY c.startTime, t.position',
      );
      expect(lines.getRowObjectsJson()).toEqual([
        { title: 'Discovery call', speaker: 'Ann', text: 'Thanks for joining' },
        { title: 'Discovery call', speaker: 'Bo', text: 'Happy to be here' },
        { title: 'Demo', speaker: 'Ann', text: 'Here is the product' },
      ]);
    } finally {
      connection.closeSync();
      duck.closeSync();
    }
  });
});

describe('ferry export, the summary table', () => {
  it('shows what a scan of changes found: every record new on the first run, the one read again unchanged on the next', async () => {
    const dir = tempProjectDir('ferry-e2e-export-table-');
    const deals = Array.from({ length: 12 }, (_, i) => ({
      dealId: `D-${i}`,
      name: `Deal ${i}`,
      stage: 'Negotiation',
      amount: 100 + i,
      lastActivityDate: `2024-02-${String(1 + i).padStart(2, '0')}T10:00:00Z`,
    }));
    writeFileSync(join(dir, 'seed.json'), JSON.stringify({ deals }));
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service: { baseUrl: embedded }
emulator: { db: state/emulator.db, seed: seed.json }
state: { url: sqlite:state/ferry.db }
exports:
  - name: deals-scan
    resource: deals
    incremental: { cursor: lastActivityDate, changes: scan }
    destination: { type: sqlite-table, path: out/warehouse.db, table: deals }
  - name: deals-plain
    resource: deals
    destination: { type: file, path: out/deals.jsonl }
`,
    );
    const rowOf = (stdout: string, name: string): string[] => {
      const lines = stdout.trim().split('\n');
      const header = lines[0]!.trim().split(/\s{2,}/);
      const row = lines.find((line) => line.startsWith(name))!.trim().split(/\s{2,}/);
      return header.map((column, i) => `${column}=${row[i]}`);
    };

    const first = await ferry(['export'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(rowOf(first.stdout, 'deals-scan')).toEqual(expect.arrayContaining(['read=12', 'exported=12', 'deleted=0', 'changes=12 new, 0 updated, 0 unchanged']));
    expect(rowOf(first.stdout, 'deals-plain')).toEqual(expect.arrayContaining(['exported=12', 'changes=-']));

    const second = await ferry(['export'], { cwd: dir });
    expect(second.code, second.stderr).toBe(0);
    // Deals are listed from the watermark by their activity time: the one at the watermark is read again and found as it was.
    expect(rowOf(second.stdout, 'deals-scan')).toEqual(expect.arrayContaining(['read=1', 'exported=0', 'changes=0 new, 0 updated, 1 unchanged']));
  });
});
