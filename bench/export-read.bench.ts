/**
 * Export read speed: the sliced reader against one cursor chain, both
 * measured in this one run.
 *
 * - stand-in: a list endpoint answering each page after 20 ms (as a remote
 *   service would), 10,000 conversations listed into a JSON Lines file; a
 *   single cursor chain (`read.slices: off`) against time windows at
 *   `service.concurrency: 8`, alternated BENCH_READ_REPEATS times (3), the
 *   best of each kept. Goal ≥ 6×. Beside them the minimal reader
 *   (bench/window-reader.mjs: undici, 8 windows cut over the range it is
 *   told, nothing else): the ceiling a plan made without probing could reach.
 *   The same list newest first (as the emulator lists) and in no time order
 *   (as a list ordered by id would be): rows of their own. Then all three
 *   at issue 44's scale, 100,000 conversations (its 2,000 pages of 50), one
 *   run each (BENCH_READ_STAND_IN_LARGE; 0 skips them).
 * - emulator: 100,000 rows in `ferry emulator` (its own process, as a user
 *   runs it), a first export into postgres-table and into parquet; one chain
 *   (the read every export did before slicing, and still the default for a
 *   full export of rows, whose createdAt may be null) against time windows
 *   (`read.undated: exclude`: every row here has createdAt). Goal ≥ 3×.
 *
 * - virtual clock: the same reader with every request one round trip and
 *   nothing else costing time (test/support/virtual-read.ts): round trips
 *   of one chain against the sliced read, for the stand-in's list and for
 *   lists whose items are unevenly spread (a dense burst, runs sharing one
 *   millisecond), in time order, newest first and in no time order. What
 *   the plan and the splits cost, apart from the machine's load.
 *
 * `BENCH_ONLY=export-read npm run bench`, or `npx tsx bench/export-read.bench.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { ServiceClient } from '../src/api/client.js';
import { startEmulator } from '../src/emulator/index.js';
import { standInConversation } from '../test/support/list-stand-in.js';
import { ferryEmulator, ferryExport, measuredNode } from './support/ferry-cli.js';
import { virtualRead } from '../test/support/virtual-read.js';

const PG_URL = process.env.FERRY_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CONCURRENCY = 8;
const STAND_IN_ITEMS = Number(process.env.BENCH_READ_STAND_IN ?? 10_000);
/** The stand-in at issue 44's scale (its 2,000 pages of 50), one run of each kind: a chain takes ~46 s. 0 skips these rows. */
const STAND_IN_LARGE_ITEMS = Number(process.env.BENCH_READ_STAND_IN_LARGE ?? 100_000);
const EMULATOR_ROWS = Number(process.env.BENCH_READ_ROWS ?? 100_000);
/**
 * Issue 44's figures for a first export of 100,000 emulator rows before any of its work: 25.9 s into
 * postgres-table, 18.6 s into parquet (one cursor chain, the emulator scanning its index from the top for
 * every page). The goal is that export ≥ 3× as fast. The one chain measured here now pages the emulator's
 * index as the sliced read does, so chain ÷ sliced no longer says what the goal asks.
 */
const ISSUE_FIRST_EXPORT_S = { 'postgres-table': 25.9, parquet: 18.6 } as const;
/** Stand-in exports of each kind, alternated; the best of each is the figure. */
const STAND_IN_REPEATS = Math.max(1, Number(process.env.BENCH_READ_REPEATS ?? 3));

type Row = { name: string; value: number | string; goal?: string; ok?: boolean };

interface Target {
  url: string;
  apiKey: string;
  /** The serving process's CPU time so far, ms (Linux /proc), when known. */
  cpuMs?: () => number | undefined;
}

/** A process's user + system CPU time in ms, its children's included (bin/ferry.js may re-run itself), from /proc (Linux); undefined elsewhere. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
    return (Number(fields[11]) + Number(fields[12])) * 10 + children.reduce((sum, child) => sum + (processCpuMs(Number(child)) ?? 0), 0);
  } catch {
    return undefined;
  }
}

/** One `ferry export` (the CLI, a process of its own) of the project's only export, on a fresh state: its own time in seconds; fails unless it exported `expected` records. */
async function timedExport(dir: string, yaml: string, target: Target, expected: number): Promise<number> {
  const state = `state-${Date.now()}-${Math.random().toString(36).slice(2)}.db`;
  writeFileSync(join(dir, 'ferry.yaml'), yaml.replace(/^exports:/m, `state: { url: "sqlite:${state}" }\nexports:`));
  const serverCpu = target.cpuMs?.();
  const summary = await ferryExport(dir, 'ferry.yaml');
  const seconds = summary.durationMs / 1000;
  if (process.env.BENCH_VERBOSE) {
    const server = serverCpu === undefined ? undefined : target.cpuMs!()! - serverCpu;
    console.error(`  ${seconds.toFixed(2)} s (the export's own time); ferry process CPU ${(summary.cpuUs / 1e6).toFixed(2)} s${server === undefined ? '' : `, server CPU ${(server / 1000).toFixed(2)} s`}`);
  }
  if (summary.status !== 'succeeded' || summary.exported !== expected) throw new Error(`export ${summary.status}: ${summary.error ?? `${summary.exported} of ${expected}`}`);
  return seconds;
}

/** The stand-in list in its own process (it must not share ferry's thread); resolves with its URL once it listens. */
async function spawnStandIn(count: number, delayMs: number, order: 'time' | 'newest' | 'shuffled'): Promise<{ url: string; stop: () => void }> {
  const tsx = resolve(import.meta.dirname, '../node_modules/tsx/dist/cli.mjs');
  const script = resolve(import.meta.dirname, '../test/support/list-stand-in-process.ts');
  const child = spawn(process.execPath, [tsx, script, String(count), String(delayMs), 'exclusive', order], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolvePromise, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the stand-in did not start: ${out}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /(http:\/\/\S+)/.exec(out)?.[1];
      if (found) {
        clearTimeout(timer);
        resolvePromise(found);
      }
    });
    child.on('exit', (code) => reject(new Error(`the stand-in exited ${code}: ${out}`)));
  });
  return { url, stop: () => child.stdin.end() };
}

/**
 * bench/window-reader.mjs (its own process, as ferry is): the stand-in's conversations read in
 * CONCURRENCY windows cut evenly over their known time range; its time in seconds from first request
 * to last answer; fails unless it counted `count` items.
 */
async function minimalWindowRead(dir: string, url: string, count: number): Promise<number> {
  const from = String(standInConversation(0).startTime);
  const to = String(standInConversation(count - 1).startTime);
  const { stdout } = await measuredNode(resolve(import.meta.dirname, 'window-reader.mjs'), [url, from, to, String(CONCURRENCY)], { cwd: dir });
  const result = JSON.parse(stdout) as { items: number; ms: number };
  if (result.items !== count) throw new Error(`the minimal reader counted ${result.items} of ${count} items`);
  return result.ms / 1000;
}

export async function standIn(): Promise<Row[]> {
  const rows: Row[] = [];
  // In time order as the goal's figure; newest first (as the emulator lists) and in no time order
  // (a list ordered by id) beside it: the reader must not depend on the order the service lists in.
  // 10,000 items, best of three; then issue 44's 2,000 pages once, where the plan's fixed cost (the first
  // page and two probe rounds, ~3 of a 10,000-item read's ~29 round trips) weighs a tenth as much.
  for (const order of ['time', 'newest', 'shuffled'] as const) rows.push(...(await standInOrdered(order, STAND_IN_ITEMS, STAND_IN_REPEATS)));
  if (STAND_IN_LARGE_ITEMS > 0) {
    for (const order of ['time', 'newest', 'shuffled'] as const) rows.push(...(await standInOrdered(order, STAND_IN_LARGE_ITEMS, 1)));
  }
  return rows;
}

async function standInOrdered(order: 'time' | 'newest' | 'shuffled', items: number, repeats: number): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-bench-read-'));
  const server = await spawnStandIn(items, 20, order);
  const yaml = (slices: string) => `version: 1
service: { baseUrl: ${server.url}, apiKey: sk_live_bench, concurrency: ${CONCURRENCY} }
exports:
  - name: calls
    resource: conversations
    read: { slices: ${slices} }
    destination: { type: file, path: out-${slices}.jsonl }
`;
  try {
    const target = { url: server.url, apiKey: 'sk_live_bench' };
    // Alternated, best of each: on a shared machine one run is as much the scheduler's figure as ferry's.
    let chain = Infinity;
    let sliced = Infinity;
    let minimal = Infinity;
    for (let i = 0; i < repeats; i++) {
      chain = Math.min(chain, await timedExport(dir, yaml('off'), target, items));
      sliced = Math.min(sliced, await timedExport(dir, yaml('auto'), target, items));
      if (order === 'time') minimal = Math.min(minimal, await minimalWindowRead(dir, server.url, items));
    }
    const ratio = +(chain / sliced).toFixed(2);
    const listed = `${items} conversations${order === 'time' ? '' : order === 'newest' ? ', newest first' : ', in no time order'}`;
    const best = repeats > 1 ? `best of ${repeats}` : 'one run';
    const rows: Row[] = [
      { name: `stand-in 20 ms/page, ${listed}: one cursor chain s (${best})`, value: +chain.toFixed(2) },
      { name: `stand-in 20 ms/page, ${listed}: sliced at concurrency ${CONCURRENCY} s (${best})`, value: +sliced.toFixed(2) },
      { name: `stand-in 20 ms/page, ${listed}: sliced speed / one chain`, value: ratio, goal: '≥ 6', ok: ratio >= 6 },
    ];
    if (order !== 'time') return rows;
    return [
      ...rows,
      { name: `stand-in 20 ms/page, ${listed}: minimal reader, ${CONCURRENCY} windows known in advance s (${best})`, value: +minimal.toFixed(2) },
      { name: `stand-in 20 ms/page, ${listed}: sliced speed / the minimal reader's (what the plan, the checks and the writes cost)`, value: +(minimal / sliced).toFixed(2) },
    ];
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Round trips of one chain and of the sliced read on a virtual clock, for lists spread evenly and not. */
export async function virtualClock(): Promise<Row[]> {
  const base = Date.UTC(2025, 0, 1);
  const count = STAND_IN_ITEMS;
  const shapes: [string, (i: number) => number][] = [
    ['even (the stand-in\'s)', (i) => base + i * 600_000],
    ['a burst (80 % within 2 h)', (i) => (i < count * 0.8 ? base + i * 1000 : base + 60 * 86_400_000 + i * 600_000)],
    ['500 per millisecond', (i) => base + Math.floor(i / 500) * 600_000],
  ];
  const rows: Row[] = [];
  for (const [shape, at] of shapes) {
    const items = Array.from({ length: count }, (_, i) => ({ ...standInConversation(i), startTime: new Date(at(i)).toISOString() }));
    for (const order of ['time', 'newest', 'shuffled'] as const) {
      const chain = await virtualRead(items, { order, concurrency: CONCURRENCY, slices: 'off' });
      const sliced = await virtualRead(items, { order, concurrency: CONCURRENCY, slices: 'auto' });
      if (sliced.distinct !== count || sliced.items !== count) throw new Error(`virtual read of ${shape}: ${sliced.items} items, ${sliced.distinct} distinct, of ${count}`);
      if (process.env.BENCH_VERBOSE) console.error(`  virtual ${shape}, ${order}: ${sliced.roundTrips} round trips, ${sliced.requests} requests (${sliced.probes} probes), ${sliced.idle} idle slot round trips`);
      rows.push({ name: `virtual clock, ${count} items ${shape}, ${order === 'time' ? 'oldest first' : order === 'newest' ? 'newest first' : 'in no time order'}: one chain / sliced round trips (${chain.roundTrips} / ${sliced.roundTrips})`, value: +(chain.roundTrips / sliced.roundTrips).toFixed(2) });
    }
  }
  return rows;
}

/** An emulator database holding `count` rows of one object type, each with createdAt, written through the store. */
export async function seedRows(db: string, count: number): Promise<void> {
  const emulator = await startEmulator({ db });
  const client = new ServiceClient({ baseUrl: emulator.url, apiKey: emulator.devKey ?? '' });
  try {
    const source = await client.createSource({ name: 'bench', displayName: 'Bench' });
    const type = await client.createObjectType({
      sourceId: source.id,
      name: 'deal',
      displayName: 'Deal',
      fieldDefinitions: [
        { name: 'stage', fieldType: 'string', required: false },
        { name: 'amount', fieldType: 'double', required: false },
        { name: 'closed', fieldType: 'boolean', required: false },
      ],
    });
    const base = Date.UTC(2024, 0, 1);
    // Group commit: the writes until the next turn of the event loop share one transaction.
    emulator.store.beginWriteBatch();
    for (let i = 0; i < count; i++) {
      const createdAt = new Date(base + i * 60_000).toISOString();
      emulator.store.putRecord(
        { orgId: emulator.orgId!, kind: 'row', sourceId: source.id, remoteId: `R-${i}` },
        {
          public: true,
          ownerEmails: [],
          objectTypeId: type.id,
          sortMs: Date.parse(createdAt),
          data: {
            name: `Deal ${i}`,
            fields: {
              stage: { value: ['Prospecting', 'Engaging', 'Won', 'Lost'][i % 4]!, fieldType: 'string', label: null },
              amount: { value: 1000 + (i % 997) + 0.5, fieldType: 'double', label: null },
              closed: { value: i % 4 >= 2, fieldType: 'boolean', label: null },
            },
            createdAt,
            updatedAt: null,
          },
        },
      );
      if (i % 10_000 === 9_999) {
        await emulator.store.whenCommitted();
        emulator.store.beginWriteBatch();
      }
    }
    await emulator.store.whenCommitted();
  } finally {
    await client.close();
    await emulator.close();
  }
}

export async function emulatorRows(count = EMULATOR_ROWS): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-bench-read-rows-'));
  const db = join(dir, 'emulator.db');
  await seedRows(db, count);
  const running = await ferryEmulator(db);
  const emulator = { ...running, cpuMs: () => processCpuMs(running.pid) };
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const schema = `ferry_bench_read_${process.pid}`;
  const rows: Row[] = [];
  try {
    for (const destination of ['postgres-table', 'parquet'] as const) {
      const timed = async (read: string, n: number) => {
        const target =
          destination === 'postgres-table'
            ? `{ type: postgres-table, url: "${PG_URL}", schema: ${schema}_${n}, table: rows }`
            : `{ type: parquet, path: rows-${n}.parquet, table: rows }`;
        if (destination === 'postgres-table') await admin.query(`DROP SCHEMA IF EXISTS "${schema}_${n}" CASCADE; CREATE SCHEMA "${schema}_${n}"`);
        const yaml = `version: 1
service: { baseUrl: ${emulator.url}, apiKey: ${emulator.apiKey}, concurrency: ${CONCURRENCY} }
exports:
  - name: rows
    resource: rows
    read: ${read}
    destination: ${target}
`;
        return timedExport(dir, yaml, emulator, count);
      };
      const chain = await timed('{ slices: off }', 1);
      const sliced = await timed('{ undated: exclude }', 2);
      if (process.env.BENCH_VERBOSE) console.error(`${destination}: one chain ${chain.toFixed(2)} s, sliced ${sliced.toFixed(2)} s`);
      const speedup = +((ISSUE_FIRST_EXPORT_S[destination] * (count / 100_000)) / sliced).toFixed(2);
      rows.push(
        { name: `emulator ${count} rows → ${destination}: one cursor chain s`, value: +chain.toFixed(2) },
        { name: `emulator ${count} rows → ${destination}: sliced at concurrency ${CONCURRENCY} s`, value: +sliced.toFixed(2) },
        { name: `emulator rows → ${destination}: sliced speed / one chain`, value: +(chain / sliced).toFixed(2) },
        {
          name: `emulator rows → ${destination}: first export speed / issue 44's (${ISSUE_FIRST_EXPORT_S[destination]} s per 100,000 rows)`,
          value: speedup,
          goal: '≥ 3',
          ok: speedup >= 3,
        },
      );
    }
    return rows;
  } finally {
    emulator.stop();
    for (const n of [1, 2]) await admin.query(`DROP SCHEMA IF EXISTS "${schema}_${n}" CASCADE`).catch(() => undefined);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<Row[]> {
  return [...(await virtualClock()), ...(await standIn()), ...(await emulatorRows())];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const row of await run()) console.log(`${row.name}  ${row.value}  ${row.goal ?? ''}${row.ok === undefined ? '' : row.ok ? ' ok' : ' MISSED'}`);
}
