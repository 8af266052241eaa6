/**
 * `postgres-cdc` as a user runs it, against the local PostgreSQL with real
 * logical replication (wal_level = logical, .ci/run sets it): the CLI is
 * killed with SIGKILL mid-snapshot and mid-stream, and after a re-run the
 * service holds exactly the table's rows; a third run writes nothing.
 * `--follow` shows a change in the service while it streams and stops on
 * SIGTERM with everything confirmed; `ferry state reset` drops the slot, a
 * lost slot stops the run with what to do. Every slot the tests create is
 * dropped at the end (a leftover slot would hold WAL on the server forever).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/api/client.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { dropSchemas, freshSchema, pgQuery, PG_URL } from '../helpers/postgres.js';
import { ferry, tempProjectDir } from './spawn-ferry.js';

const BIN = resolve(import.meta.dirname, '../../bin/ferry.js');
const schema = freshSchema('ferry_cdc');
const slots: string[] = [];

interface TableRow {
  id: number;
  title: string;
  amount: string;
  notes: string | null;
}

/** A project whose one sync captures `table` into rows of object type `deal`. */
function project(emulator: RunningEmulator, sync: string, table: string, extra = '', target: { fields?: string; newFields?: string } = {}): string {
  const dir = tempProjectDir('ferry-cdc-');
  slots.push(`ferry_${sync}`);
  writeProject(dir, emulator, sync, `table: ${table}, snapshotChunkRows: 50${extra}`, target);
  return dir;
}

/** ferry.yaml for one postgres-cdc sync: `source` is what follows `schema:` in the source's flow mapping. */
function writeProject(dir: string, emulator: RunningEmulator, sync: string, source: string, target: { fields?: string; newFields?: string } = {}): void {
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: { baseUrl: ${emulator.url}, apiKey: "\${FERRY_API_KEY}", maxRequestsPerSecond: 5000, concurrency: 4 }
state: { url: sqlite:state/ferry.db }
syncs:
  - name: ${sync}
    source: { type: postgres-cdc, url: "${PG_URL}", schema: ${schema}, ${source} }
    target:
      type: row
      source: { name: crm-${sync} }
      objectType: { name: deal_${sync} }${target.newFields ? `\n      newFields: ${target.newFields}` : ''}
      map: { id: $string(id), name: title, public: true, fields: ${target.fields ?? '{ amount: amount, notes: notes }'} }
`,
  );
}

async function tableRows(table: string): Promise<Map<string, TableRow>> {
  const rows = await pgQuery<TableRow>(`SELECT id, title, amount::text AS amount, notes FROM "${schema}"."${table}"`);
  return new Map(rows.map((r) => [String(r.id), r]));
}

/** The service's rows of the sync's source, as remote id → (name, amount, notes). */
async function serviceRows(client: ServiceClient, sourceName: string): Promise<Map<string, { name: string; amount: unknown; notes: unknown }>> {
  const sources = await client.listSources({ name: sourceName });
  const source = sources.sources.find((s) => s.name === sourceName);
  const out = new Map<string, { name: string; amount: unknown; notes: unknown }>();
  if (!source) return out;
  for await (const row of client.iterateRows({ sourceId: source.id, limit: 50 })) {
    out.set(String(row.remoteId), { name: String(row.name), amount: row.fields.amount?.value, notes: row.fields.notes?.value });
  }
  return out;
}

async function expectServiceEqualsTable(client: ServiceClient, sync: string, table: string | string[]): Promise<void> {
  const want = new Map<string, TableRow>();
  for (const name of Array.isArray(table) ? table : [table]) for (const [id, row] of await tableRows(name)) want.set(id, row);
  const have = await serviceRows(client, `crm-${sync}`);
  expect([...have.keys()].sort()).toEqual([...want.keys()].sort());
  for (const [id, row] of want) {
    const got = have.get(id)!;
    expect({ id, name: got.name, amount: Number(got.amount), notes: typeof got.notes === 'string' ? got.notes.length : got.notes ?? null }).toEqual({
      id,
      name: row.title,
      amount: Number(row.amount),
      notes: row.notes === null ? null : row.notes.length,
    });
  }
}

/** The service's rows of the sync's source with every field, as remote id → (name, field → value). */
async function serviceFields(client: ServiceClient, sourceName: string): Promise<Map<string, { name: string; fields: Record<string, unknown> }>> {
  const sources = await client.listSources({ name: sourceName });
  const source = sources.sources.find((s) => s.name === sourceName);
  const out = new Map<string, { name: string; fields: Record<string, unknown> }>();
  if (!source) return out;
  for await (const row of client.iterateRows({ sourceId: source.id, limit: 50 })) {
    out.set(String(row.remoteId), { name: String(row.name), fields: Object.fromEntries(Object.entries(row.fields).map(([k, v]) => [k, v?.value])) });
  }
  return out;
}

/** The field names and types of the object type the sync pushes into. */
async function objectTypeFields(client: ServiceClient, sourceName: string): Promise<Record<string, string>> {
  const sources = await client.listSources({ name: sourceName });
  const source = sources.sources.find((s) => s.name === sourceName);
  if (!source) return {};
  const { objectTypes } = await client.listObjectTypes({ sourceId: source.id });
  return Object.fromEntries((objectTypes[0]?.fieldDefinitions ?? []).map((d) => [d.name, d.fieldType]));
}

function spawnRun(dir: string, env: Record<string, string>, args: string[] = []): ChildProcess {
  return spawn(process.execPath, [BIN, 'run', '--json', ...args], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> {
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr?.resume();
  return new Promise((r) => {
    child.once('close', (code, sig) => r({ code, signal: sig, stdout }));
    child.kill(signal);
  });
}

function countsOf(stdout: string): Record<string, number> {
  return (JSON.parse(stdout) as { syncs: { counts: Record<string, number> }[] }).syncs[0]!.counts;
}

/** Text that does not compress, so PostgreSQL stores it out of line (TOAST). */
function toastable(n: number, seed: number): string {
  let x = seed;
  let s = '';
  while (s.length < n) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += x.toString(36);
  }
  return s.slice(0, n);
}

describe('postgres-cdc (spawned, real logical replication)', () => {
  let emulator: RunningEmulator;
  let client: ServiceClient;
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startEmulator({ db: ':memory:' });
    client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey! });
    env = { FERRY_API_KEY: emulator.devKey! };
    await pgQuery(`CREATE SCHEMA "${schema}"`);
  });

  afterAll(async () => {
    await client?.close();
    await emulator?.close();
    // Whatever a test left behind: a slot would retain WAL on the shared server.
    for (const slot of slots) await pgQuery('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active', [slot]).catch(() => undefined);
    for (const slot of slots) await pgQuery(`DROP PUBLICATION IF EXISTS "${slot}"`).catch(() => undefined);
    await dropSchemas(schema);
  });

  it('survives SIGKILL mid-snapshot and mid-stream: the service equals the table, and unchanged rows cost no write', { timeout: 120_000 }, async () => {
    const sync = `k${schema.slice(-6)}`;
    await pgQuery(`CREATE TABLE "${schema}".deals (id int PRIMARY KEY, title text NOT NULL, amount numeric(12,2) NOT NULL, notes text)`);
    await pgQuery(`INSERT INTO "${schema}".deals SELECT g, 'deal ' || g, g * 1.25, CASE WHEN g % 100 = 0 THEN 'note ' || g END FROM generate_series(1, 600) g`);
    const dir = project(emulator, sync, 'deals');

    // Mid-snapshot: slow answers, killed once a checkpoint (every 2 s) has surely stored some landed rows.
    emulator.setFaults({ latencyMs: 40 });
    const first = spawnRun(dir, env);
    await until('the first rows of the snapshot', async () => (await serviceRows(client, `crm-${sync}`)).size >= 50);
    await new Promise((r) => setTimeout(r, 2500));
    expect((await killed(first, 'SIGKILL')).signal).toBe('SIGKILL');
    emulator.setFaults({});
    expect((await serviceRows(client, `crm-${sync}`)).size).toBeLessThan(600);
    // Changes while nothing runs, on both sides of where the snapshot stopped, and a TOASTed value.
    await pgQuery(`UPDATE "${schema}".deals SET title = title || ' (renamed)' WHERE id IN (2, 590)`);
    await pgQuery(`DELETE FROM "${schema}".deals WHERE id IN (3, 591)`);
    await pgQuery(`INSERT INTO "${schema}".deals VALUES (9001, 'late', 7, $1)`, [toastable(40_000, 1)]);
    const resumed = await ferry(['run', '--json'], { cwd: dir, env });
    expect(resumed.stderr).toMatch(/resumed an interrupted snapshot/);
    expect(resumed.code).toBe(0);
    await expectServiceEqualsTable(client, sync, 'deals');

    // Mid-stream: a few hundred changes in several transactions, killed while they land.
    await pgQuery(`UPDATE "${schema}".deals SET amount = amount + 1 WHERE id <= 200`);
    await pgQuery(`UPDATE "${schema}".deals SET title = 'big ' || id WHERE id BETWEEN 201 AND 300`);
    await pgQuery(`DELETE FROM "${schema}".deals WHERE id BETWEEN 301 AND 340`);
    await pgQuery(`INSERT INTO "${schema}".deals SELECT g, 'new ' || g, g, NULL FROM generate_series(2001, 2100) g`);
    // An update that leaves the TOASTed value alone: pgoutput does not send it again.
    await pgQuery(`UPDATE "${schema}".deals SET title = 'late, renamed' WHERE id = 9001`);
    emulator.setFaults({ latencyMs: 25 });
    const streaming = spawnRun(dir, env);
    await until('some streamed changes', async () => {
      const rows = await serviceRows(client, `crm-${sync}`);
      return Number(rows.get('1')?.amount) === 2.25;
    });
    expect((await killed(streaming, 'SIGKILL')).signal).toBe('SIGKILL');
    emulator.setFaults({});
    await pgQuery(`UPDATE "${schema}".deals SET title = 'after the kill' WHERE id IN (1, 2100)`);
    await pgQuery(`UPDATE "${schema}".deals SET id = 5000 WHERE id = 10`);
    const rerun = await ferry(['run', '--json'], { cwd: dir, env });
    expect(rerun.code).toBe(0);
    await expectServiceEqualsTable(client, sync, 'deals');
    expect((await serviceRows(client, `crm-${sync}`)).get('9001')?.notes).toBe(toastable(40_000, 1));

    // Nothing changed: nothing is written, and the slot was confirmed past every change.
    const quiet = await ferry(['run', '--json'], { cwd: dir, env });
    expect(quiet.code).toBe(0);
    expect(countsOf(quiet.stdout)).toMatchObject({ created: 0, updated: 0, deleted: 0, failed: 0 });
    const [slot] = await pgQuery<{ behind: boolean }>(
      `SELECT confirmed_flush_lsn < (SELECT max(lsn) FROM (VALUES (pg_current_wal_lsn())) v(lsn)) - 1000000 AS behind FROM pg_replication_slots WHERE slot_name = $1`,
      [`ferry_${sync}`],
    );
    expect(slot?.behind).toBe(false);

    // `ferry state reset` drops the slot and the publication it created.
    const reset = await ferry(['state', 'reset', sync, '--yes'], { cwd: dir, env });
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain(`dropped replication slot ferry_${sync}`);
    expect(reset.stdout).toContain(`dropped publication ferry_${sync}`);
    expect(await pgQuery('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [`ferry_${sync}`])).toHaveLength(0);
  });

  it('follows: a change shows in the service while it streams, SIGTERM confirms and exits 0; a lost slot stops the next run', { timeout: 90_000 }, async () => {
    const sync = `f${schema.slice(-6)}`;
    await pgQuery(`CREATE TABLE "${schema}".live (id int PRIMARY KEY, title text NOT NULL, amount numeric NOT NULL, notes text)`);
    await pgQuery(`INSERT INTO "${schema}".live SELECT g, 'live ' || g, g, NULL FROM generate_series(1, 20) g`);
    const dir = project(emulator, sync, 'live', ', statusIntervalMs: 500');
    const check = await ferry(['check'], { cwd: dir, env });
    expect(check.stdout + check.stderr).toMatch(/postgres-cdc source reachable/);
    expect(check.stdout + check.stderr).toMatch(/REPLICA IDENTITY DEFAULT/);

    const follower = spawnRun(dir, env, ['--follow']);
    try {
      await until('the snapshot', async () => (await serviceRows(client, `crm-${sync}`)).size === 20);
      await pgQuery(`INSERT INTO "${schema}".live VALUES (21, 'while following', 1, NULL)`);
      await pgQuery(`DELETE FROM "${schema}".live WHERE id = 1`);
      await until('the streamed insert and delete', async () => {
        const rows = await serviceRows(client, `crm-${sync}`);
        return rows.has('21') && !rows.has('1');
      });
      const [{ lsn }] = (await pgQuery<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')) as [{ lsn: string }];
      // At rest the stream confirms what landed (and the WAL after it) without a new change.
      await until('the slot to confirm the change', async () => {
        const rows = await pgQuery<{ ok: boolean }>('SELECT confirmed_flush_lsn >= $2::pg_lsn AS ok FROM pg_replication_slots WHERE slot_name = $1', [`ferry_${sync}`, lsn]);
        return rows[0]?.ok === true;
      });
      const status = await ferry(['status', '--json'], { cwd: dir, env });
      const shown = (JSON.parse(status.stdout) as { syncs: { sourceLag?: { bytes?: number; details?: { active?: boolean } } }[] }).syncs[0]!;
      expect(shown.sourceLag?.bytes).toBeTypeOf('number');
      expect(shown.sourceLag?.details?.active).toBe(true);
    } finally {
      const stopped = await killed(follower, 'SIGTERM');
      expect(stopped.code).toBe(0);
      expect(countsOf(stopped.stdout)).toMatchObject({ created: 21, deleted: 1, failed: 0 });
    }
    await expectServiceEqualsTable(client, sync, 'live');

    // The slot goes behind ferry's back: the next run says what to do instead of skipping what it missed.
    await pgQuery('SELECT pg_drop_replication_slot($1)', [`ferry_${sync}`]);
    const lost = await ferry(['run'], { cwd: dir, env });
    expect(lost.code).toBe(3);
    expect(lost.stderr).toMatch(/FERRY_SOURCE_POSITION_LOST/);
    expect(lost.stderr).toMatch(/--full-refresh/);
    const status = await ferry(['status'], { cwd: dir, env });
    expect(status.stdout).toMatch(/WARNING: replication slot ferry_\w+ is gone/);
    const again = await ferry(['run', '--full-refresh', '--json'], { cwd: dir, env });
    expect(again.code).toBe(0);
    expect(countsOf(again.stdout)).toMatchObject({ unchanged: 20, created: 0, updated: 0 });
    expect((await ferry(['state', 'reset', sync, '--yes'], { cwd: dir, env })).code).toBe(0);
  });

  it('captures several tables into one sync (tables:); a TRUNCATE stops the run under onTruncate: fail (again on a re-run) and is passed over, counted, under ignore', { timeout: 120_000 }, async () => {
    const sync = `t${schema.slice(-6)}`;
    for (const t of ['accounts', 'leads']) await pgQuery(`CREATE TABLE "${schema}".${t} (id int PRIMARY KEY, title text NOT NULL, amount numeric NOT NULL, notes text)`);
    await pgQuery(`INSERT INTO "${schema}".accounts SELECT g, 'account ' || g, g, NULL FROM generate_series(1, 30) g`);
    await pgQuery(`INSERT INTO "${schema}".leads SELECT g, 'lead ' || g, g, NULL FROM generate_series(101, 120) g`);
    const dir = tempProjectDir('ferry-cdc-');
    slots.push(`ferry_${sync}`);
    const source = 'tables: [accounts, leads], snapshotChunkRows: 7, lagWarnBytes: 1';
    writeProject(dir, emulator, sync, source);
    const first = await ferry(['run', '--json'], { cwd: dir, env });
    expect(first.code).toBe(0);
    expect(countsOf(first.stdout)).toMatchObject({ created: 50, failed: 0 });
    await expectServiceEqualsTable(client, sync, ['accounts', 'leads']);

    // One transaction across both tables, then one for each.
    await pgQuery(
      `BEGIN; INSERT INTO "${schema}".accounts VALUES (31, 'account 31', 31, NULL); UPDATE "${schema}".leads SET title = 'lead 101, hot' WHERE id = 101; DELETE FROM "${schema}".accounts WHERE id = 1; COMMIT`,
    );
    await pgQuery(`DELETE FROM "${schema}".leads WHERE id = 120`);
    await pgQuery(`UPDATE "${schema}".accounts SET amount = 99 WHERE id = 30`);
    const drained = await ferry(['run', '--json'], { cwd: dir, env });
    expect(drained.code).toBe(0);
    expect(countsOf(drained.stdout)).toMatchObject({ created: 1, updated: 2, deleted: 2, failed: 0 });
    await expectServiceEqualsTable(client, sync, ['accounts', 'leads']);

    // TRUNCATE under onTruncate: fail (the default): what came before it lands, the run stops at it, and a re-run stops there again.
    await pgQuery(`UPDATE "${schema}".accounts SET title = 'before the truncate' WHERE id = 2`);
    await pgQuery(`TRUNCATE "${schema}".leads`);
    await pgQuery(`UPDATE "${schema}".accounts SET title = 'after the truncate' WHERE id = 3`);
    for (let attempt = 0; attempt < 2; attempt++) {
      const stopped = await ferry(['run'], { cwd: dir, env });
      expect(stopped.code).toBe(3);
      expect(stopped.stderr).toMatch(new RegExp(`${schema}\\.leads was truncated`));
      expect(stopped.stderr).toMatch(/onTruncate: ignore/);
      const rows = await serviceRows(client, `crm-${sync}`);
      expect(rows.get('2')?.name).toBe('before the truncate');
      expect(rows.get('3')?.name).toBe('account 3');
      expect(rows.has('101')).toBe(true);
    }
    // The slot holds back the WAL from the TRUNCATE on: above lagWarnBytes, ferry status warns.
    const status = await ferry(['status', '--json'], { cwd: dir, env });
    const lag = (JSON.parse(status.stdout) as { syncs: { sourceLag?: { bytes?: number; warning?: string } }[] }).syncs[0]!.sourceLag;
    expect(lag?.bytes).toBeGreaterThan(1);
    expect(lag?.warning).toMatch(/holds back \d+ bytes of WAL \(above lagWarnBytes 1\)/);

    // onTruncate: ignore passes over it, counted as skipped and logged; the service keeps the table's records.
    writeProject(dir, emulator, sync, `${source}, onTruncate: ignore`);
    const ignored = await ferry(['run', '--json'], { cwd: dir, env });
    expect(ignored.code).toBe(0);
    expect(countsOf(ignored.stdout)).toMatchObject({ updated: 1, skipped: 1, failed: 0 });
    expect(ignored.stderr).toMatch(new RegExp(`TRUNCATE of ${schema}\\.leads ignored`));
    const rows = await serviceRows(client, `crm-${sync}`);
    expect(rows.get('3')?.name).toBe('after the truncate');
    expect([...rows.keys()].filter((id) => Number(id) > 100)).toHaveLength(19);
    expect((await ferry(['state', 'reset', sync, '--yes'], { cwd: dir, env })).code).toBe(0);
  });

  it('schema changes while following go through newFields: evolve: an added column becomes a field, a dropped one leaves the records, a retyped one keeps its field type', { timeout: 120_000 }, async () => {
    const sync = `s${schema.slice(-6)}`;
    const source = `crm-${sync}`;
    await pgQuery(`CREATE TABLE "${schema}".shape (id int PRIMARY KEY, title text NOT NULL, qty int, score int)`);
    await pgQuery(`INSERT INTO "${schema}".shape SELECT g, 'shape ' || g, g, g FROM generate_series(1, 5) g`);
    const dir = project(emulator, sync, 'shape', ', statusIntervalMs: 500', { fields: '$' });
    const follower = spawnRun(dir, env, ['--follow']);
    let stopped: Awaited<ReturnType<typeof killed>> | undefined;
    try {
      await until('the snapshot', async () => (await serviceFields(client, source)).size === 5);
      expect(await objectTypeFields(client, source)).toMatchObject({ qty: 'int', score: 'int' });

      // A column added: the first record that carries it adds the field to the object type.
      await pgQuery(`ALTER TABLE "${schema}".shape ADD COLUMN stage text`);
      await pgQuery(`UPDATE "${schema}".shape SET stage = 'won' WHERE id = 1`);
      await pgQuery(`INSERT INTO "${schema}".shape VALUES (6, 'shape 6', 6, 6, 'open')`);
      await until('the added column', async () => {
        const rows = await serviceFields(client, source);
        return rows.get('1')?.fields.stage === 'won' && rows.get('6')?.fields.stage === 'open';
      });
      expect(await objectTypeFields(client, source)).toMatchObject({ stage: 'string' });

      // A column dropped: records no longer carry it (the object type keeps the field; ferry only adds fields).
      await pgQuery(`ALTER TABLE "${schema}".shape DROP COLUMN qty`);
      await pgQuery(`UPDATE "${schema}".shape SET title = 'shape 2, no qty' WHERE id = 2`);
      await until('the dropped column', async () => (await serviceFields(client, source)).get('2')?.name === 'shape 2, no qty');
      const afterDrop = await serviceFields(client, source);
      expect(afterDrop.get('2')!.fields).not.toHaveProperty('qty');
      expect(afterDrop.get('2')!.fields).toMatchObject({ score: 2, stage: null });
      expect(afterDrop.get('5')!.fields).toMatchObject({ qty: 5 });

      // A column retyped (int → numeric): the field keeps its type; a value that converts goes through, one that does not is dead-lettered.
      await pgQuery(`ALTER TABLE "${schema}".shape ALTER COLUMN score TYPE numeric(6,1)`);
      await pgQuery(`UPDATE "${schema}".shape SET score = 30 WHERE id = 3`);
      await pgQuery(`UPDATE "${schema}".shape SET score = 4.5 WHERE id = 4`);
      await pgQuery(`UPDATE "${schema}".shape SET title = 'shape 5, last' WHERE id = 5`);
      await until('the retyped column', async () => (await serviceFields(client, source)).get('5')?.name === 'shape 5, last');
      const afterRetype = await serviceFields(client, source);
      expect(afterRetype.get('3')!.fields.score).toBe(30);
      expect(afterRetype.get('4')!.fields.score).toBe(4);
      expect((await objectTypeFields(client, source)).score).toBe('int');
    } finally {
      stopped = await killed(follower, 'SIGTERM');
    }
    expect(stopped.code).toBe(2);
    expect(countsOf(stopped.stdout)).toMatchObject({ created: 6, updated: 4, failed: 1 });
    const failures = await ferry(['failures', 'list', sync], { cwd: dir, env });
    expect(failures.stdout).toMatch(/4\.5|score/);
    expect((await ferry(['state', 'reset', sync, '--yes'], { cwd: dir, env })).code).toBe(0);
  });

  it('schema changes between drains: newFields: freeze dead-letters the records with a new column, discard drops it; an unchanged TOASTed value of a column dropped since is left out, counted', { timeout: 120_000 }, async () => {
    const runs = await Promise.all(
      (['freeze', 'discard'] as const).map(async (policy) => {
        const sync = `${policy === 'freeze' ? 'z' : 'x'}${schema.slice(-6)}`;
        const table = `${policy}_t`;
        await pgQuery(`CREATE TABLE "${schema}".${table} (id int PRIMARY KEY, title text NOT NULL, notes text)`);
        await pgQuery(`INSERT INTO "${schema}".${table} VALUES (1, 'one', $1), (2, 'two', NULL), (3, 'three', 'short')`, [toastable(40_000, 7)]);
        const dir = project(emulator, sync, table, '', { fields: '$', newFields: policy });
        const first = await ferry(['run', '--json'], { cwd: dir, env });
        expect(first.code, first.stdout + first.stderr + (await ferry(['failures', 'list', sync], { cwd: dir, env })).stdout).toBe(0);
        expect(countsOf(first.stdout)).toMatchObject({ created: 3 });
        // While nothing runs: an update that leaves the TOASTed notes alone, then notes dropped and color added.
        await pgQuery(`UPDATE "${schema}".${table} SET title = 'one, renamed' WHERE id = 1`);
        await pgQuery(`ALTER TABLE "${schema}".${table} DROP COLUMN notes`);
        await pgQuery(`ALTER TABLE "${schema}".${table} ADD COLUMN color text`);
        await pgQuery(`UPDATE "${schema}".${table} SET color = 'red' WHERE id = 2`);
        await pgQuery(`INSERT INTO "${schema}".${table} VALUES (4, 'four', 'blue')`);
        const drained = await ferry(['run', '--json'], { cwd: dir, env });
        const quiet = await ferry(['run', '--json'], { cwd: dir, env });
        return { policy, sync, dir, drained, quiet, rows: await serviceFields(client, `crm-${sync}`), type: await objectTypeFields(client, `crm-${sync}`) };
      }),
    );
    for (const { policy, sync, dir, drained, quiet, rows, type } of runs) {
      // Row 1's change was made before notes went: its value cannot be read back, so it is left out, and that is said.
      expect(drained.stderr).toMatch(/notes.*(no longer exists|dropped)/);
      expect(rows.get('1')?.name).toBe('one, renamed');
      expect(rows.get('3')?.fields.notes).toBe('short');
      expect(type).not.toHaveProperty('color');
      if (policy === 'freeze') {
        expect(drained.code).toBe(2);
        expect(countsOf(drained.stdout)).toMatchObject({ updated: 1, created: 0, failed: 2 });
        expect(rows.has('4')).toBe(false);
        const failures = await ferry(['failures', 'list', sync], { cwd: dir, env });
        expect(failures.stdout).toMatch(/newFields: freeze/);
      } else {
        expect(drained.code).toBe(0);
        expect(countsOf(drained.stdout)).toMatchObject({ updated: 2, created: 1, failed: 0 });
        expect(drained.stderr).toMatch(/dropped \(newFields: discard\)/);
        expect(rows.get('4')).toMatchObject({ name: 'four' });
        expect(rows.get('4')!.fields).not.toHaveProperty('color');
      }
      // The record went without the value: read (and pushed) once, and counted as repaired.
      expect(countsOf(drained.stdout)).toMatchObject({ skipped: 0, repaired: 1 });
      // Nothing is read twice.
      expect(quiet.code).toBe(0);
      expect(countsOf(quiet.stdout)).toMatchObject({ created: 0, updated: 0, failed: 0 });
      expect((await ferry(['state', 'reset', sync, '--yes'], { cwd: dir, env })).code).toBe(0);
    }
  });

  it('ferry check: a role without REPLICATION and a named publication that lacks the table are refused; state reset keeps a publication ferry did not create', { timeout: 60_000 }, async () => {
    const sync = `c${schema.slice(-6)}`;
    const role = `ferry_norepl_${schema.slice(-6)}`;
    const publication = `pub_${schema.slice(-6)}`;
    await pgQuery(`CREATE TABLE "${schema}".checked (id int PRIMARY KEY, title text NOT NULL, amount numeric NOT NULL, notes text)`);
    await pgQuery(`CREATE TABLE "${schema}".other (id int PRIMARY KEY)`);
    await pgQuery(`INSERT INTO "${schema}".checked VALUES (1, 'one', 1, NULL)`);
    await pgQuery(`CREATE ROLE ${role} LOGIN`);
    try {
      await pgQuery(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
      const dir = project(emulator, sync, 'checked', `, publication: ${publication}`);
      const yaml = join(dir, 'ferry.yaml');
      const asRole = new URL(PG_URL);
      asRole.username = role;
      writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(PG_URL, asRole.toString()));
      const noRight = await ferry(['check'], { cwd: dir, env });
      expect(noRight.code).not.toBe(0);
      expect(noRight.stdout + noRight.stderr).toMatch(/lacks the REPLICATION attribute/);
      expect(noRight.stdout + noRight.stderr).toMatch(/ALTER ROLE <role> WITH REPLICATION/);

      await pgQuery(`ALTER ROLE ${role} WITH REPLICATION`);
      const noPublication = await ferry(['check'], { cwd: dir, env });
      expect(noPublication.code).toBe(0);
      expect(noPublication.stdout + noPublication.stderr).toMatch(new RegExp(`publication ${publication} does not exist yet`));

      await pgQuery(`CREATE PUBLICATION ${publication} FOR TABLE "${schema}".other`);
      const lacking = await ferry(['check'], { cwd: dir, env });
      expect(lacking.code).toBe(1);
      expect(lacking.stdout + lacking.stderr).toMatch(new RegExp(`publication ${publication} does not include checked`));

      await pgQuery(`ALTER PUBLICATION ${publication} ADD TABLE "${schema}".checked`);
      const ok = await ferry(['check'], { cwd: dir, env });
      expect(ok.code).toBe(0);
      expect(ok.stdout + ok.stderr).toMatch(new RegExp(`publication ${publication} includes the table`));
      const run = await ferry(['run', '--json'], { cwd: dir, env });
      expect(run.code).toBe(0);
      expect(countsOf(run.stdout)).toMatchObject({ created: 1 });

      const reset = await ferry(['state', 'reset', sync, '--yes'], { cwd: dir, env });
      expect(reset.code).toBe(0);
      expect(reset.stdout).toContain(`dropped replication slot ferry_${sync}`);
      expect(reset.stdout).toContain(`kept publication ${publication} (ferry did not create it)`);
      expect(await pgQuery('SELECT 1 FROM pg_publication WHERE pubname = $1', [publication])).toHaveLength(1);
    } finally {
      await pgQuery(`DROP PUBLICATION IF EXISTS ${publication}`);
      await pgQuery(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active`, [`ferry_${sync}`]);
      await pgQuery(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
    }
  });
});
