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
import { writeFileSync } from 'node:fs';
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
function project(emulator: RunningEmulator, sync: string, table: string, extra = ''): string {
  const dir = tempProjectDir('ferry-cdc-');
  slots.push(`ferry_${sync}`);
  writeFileSync(
    join(dir, 'ferry.yaml'),
    `version: 1
service: { baseUrl: ${emulator.url}, apiKey: "\${FERRY_API_KEY}", maxRequestsPerSecond: 5000, concurrency: 4 }
state: { url: sqlite:state/ferry.db }
syncs:
  - name: ${sync}
    source: { type: postgres-cdc, url: "${PG_URL}", schema: ${schema}, table: ${table}, snapshotChunkRows: 50${extra} }
    target:
      type: row
      source: { name: crm-${sync} }
      objectType: { name: deal_${sync} }
      map: { id: $string(id), name: title, public: true, fields: { amount: amount, notes: notes } }
`,
  );
  return dir;
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

async function expectServiceEqualsTable(client: ServiceClient, sync: string, table: string): Promise<void> {
  const [want, have] = [await tableRows(table), await serviceRows(client, `crm-${sync}`)];
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

  it('follows: a change shows in the service while it streams, SIGTERM confirms and exits 0; a lost slot stops the next run', async () => {
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
});
