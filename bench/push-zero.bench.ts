/**
 * Push at zero latency: `ferry run` as `ferry init` leaves a project (no
 * concurrency, no ceiling, SQLite state) ÷ the minimal reference client
 * (bench/reference-client.mjs: csv-parse + an undici Pool, 16 in flight, the
 * bodies ferry sends, byte for byte), each rate the stand-in's, from the first
 * row request it saw to the last 201. Alternating pairs, the median pair: a
 * shared 2-core machine changes speed under a run. Beside it: CPU per
 * record of both processes, ferry's start-up, ferry at c16, the stand-in's
 * own HTTP limit (autocannon), and that the client's bodies equal ferry's.
 *
 * BENCH_PUSH_ZERO_ROWS (default 30000), BENCH_PUSH_ZERO_PAIRS (default 3);
 * BENCH_CPU_PROF=<dir> writes a `node --cpu-prof` profile of each ferry run
 * with the defaults into <dir> (docs/performance.md reads one by phase).
 */
import { FERRY_BIN, measuredNode, type CliRun, type ProcessFigures } from './support/ferry-cli.js';
import { C16, httpLimit, withPushKit } from './support/push-kit.js';
import { judged, median, ratio, type BenchRow } from './support/rows.js';

const zeroRows = Number(process.env.BENCH_PUSH_ZERO_ROWS ?? 30_000);
const pairsWanted = Number(process.env.BENCH_PUSH_ZERO_PAIRS ?? 3);
const profileDir = process.env.BENCH_CPU_PROF;
const nodeFlags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];

export function run(): Promise<BenchRow[]> {
  return withPushKit('push-zero', async ({ standIn, dir, csv, ferry, reference }) => {
    const out: BenchRow[] = [];
    const zero = await csv(zeroRows);
    const pairs: { ferry: number; client: number; ferryRun: CliRun; clientRun: ProcessFigures }[] = [];
    for (let pair = 0; pair < pairsWanted; pair++) {
      await standIn.mode({ kind: 'instant' });
      const ferryRun = await ferry(zero, {}, { nodeFlags });
      const ferryRate = await standIn.serviceRate();
      await standIn.mode({ kind: 'instant' });
      const clientRun = await reference(zero);
      pairs.push({ ferry: ferryRate, client: await standIn.serviceRate(), ferryRun, clientRun });
    }
    pairs.sort((a, b) => a.ferry / a.client - b.ferry / b.client);
    const middle = pairs[Math.floor(pairs.length / 2)]!;
    const range = `${(pairs[0]!.ferry / pairs[0]!.client).toFixed(2)}-${(pairs.at(-1)!.ferry / pairs.at(-1)!.client).toFixed(2)}`;
    out.push({ name: `ferry (defaults) ÷ reference client (${zeroRows} rows, service's rate; median of ${pairs.length} pairs, ${range})`, value: ratio(middle.ferry, middle.client), goal: '≥ 0.8' });
    out.push({ name: 'ferry records/s (service\'s rate, median pair)', value: Math.round(middle.ferry) });
    out.push({ name: 'reference client records/s (service\'s rate, median pair)', value: Math.round(middle.client) });
    const ferryCpu = median(pairs.map((p) => p.ferryRun.cpuUs / zeroRows));
    const clientCpu = median(pairs.map((p) => p.clientRun.cpuUs / zeroRows));
    out.push({ name: 'CPU µs per record, ferry (whole process, start-up included; median)', value: +ferryCpu.toFixed(1) });
    out.push({ name: 'CPU µs per record, reference client (whole process; median)', value: +clientCpu.toFixed(1) });
    out.push({ name: 'CPU per record, ferry ÷ reference client', value: ratio(ferryCpu, clientCpu) });
    // The service's rate leaves out what comes before the first row request; a user waits for all of it.
    out.push({ name: 'process start to exit, reference client ÷ ferry (median pair)', value: ratio(middle.clientRun.lifeMs, middle.ferryRun.lifeMs) });
    out.push({ name: 'ferry run: process life less the sync\'s own time, ms (start-up, config, state, exit)', value: Math.round(middle.ferryRun.lifeMs - middle.ferryRun.durationMs) });
    const version = await measuredNode(FERRY_BIN, ['--version'], { cwd: dir });
    out.push({ name: 'ferry --version: process start to exit, ms (the CLI\'s own start-up)', value: Math.round(version.lifeMs) });

    // Today's settings before the adaptive limits: 16 in flight, a ceiling that never binds.
    await standIn.mode({ kind: 'instant' });
    await ferry(zero, C16);
    out.push({ name: `ferry c16 ÷ reference client (the median pair's)`, value: ratio(await standIn.serviceRate(), middle.client) });
    out.push({ name: 'ferry ÷ HTTP limit (autocannon, 16 connections)', value: ratio(middle.ferry, await httpLimit(standIn.url, 16)) });

    // The records ferry just sent, sent again by the client: no body may change.
    const { stats: again } = await standIn.stats();
    await reference(zero);
    const { stats: afterReference } = await standIn.stats();
    out.push({ name: 'reference client\'s bodies byte-identical to ferry\'s (1 = yes)', value: again.written > 0 && afterReference.changedBodies === 0 ? 1 : 0, goal: '= 1' });
    return judged(out);
  });
}
