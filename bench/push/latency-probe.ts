/**
 * Where does ferry leave request slots idle at a fixed latency? Warms the
 * stand-in (its own process) up as the push bench does, then runs the deals
 * sync (ferry-run.ts, its own process) against it in `latency` mode and
 * prints, per concurrency: records/s ÷ concurrency/latency (and ÷ the
 * stand-in's own measured time per request), the mean request cycle split
 * into its legs, the share of the window at each in-flight level, records/s
 * per 500 ms (the ramp), ferry's flow samples (flow-trace.ts: free slots with
 * nothing queued, or a late event loop, by batch phase; undici's wait before
 * writing a request; commits, ledger look-ups, csv chunks, GC pauses), how
 * long each process waited for a CPU, and the longest stretches below full
 * concurrency with how many records had been answered when each began.
 *
 * Usage: npx tsx bench/push/latency-probe.ts [concurrency…]   (default 16 64)
 * Env: PROBE_LATENCY_MS (20; 0 = instant), PROBE_SECONDS (4: rows = bound × seconds),
 * PROBE_ROWS (overrides), PROBE_GAPS (8), PROBE_EARLY_MS (ferry's samples and the
 * stretches in the first ms), PROBE_FIRST (the first N sends, arrivals and answers).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { StandInTimeline } from '../stand-in/service.js';
import { writeDealsCsv } from './deals.js';
import { StandIn } from '../stand-in/client.js';

const tsx = resolve(import.meta.dirname, '../../node_modules/tsx/dist/cli.mjs');
const latencyMs = Number(process.env.PROBE_LATENCY_MS ?? 20);
const seconds = Number(process.env.PROBE_SECONDS ?? 4);
const gapsShown = Number(process.env.PROBE_GAPS ?? 8);
const levels = process.argv.slice(2).map(Number);

type Gap = { start: number; ms: number; answered: number; low: number };

/** Time (ms) spent at each in-flight count between the first answer and the last, and the stretches below `full`. */
export function inFlightProfile(t: StandInTimeline, full: number): { at: Map<number, number>; gaps: Gap[] } {
  const events = [...t.writes.map((w) => [w[1], 1] as const), ...t.writes.map((w) => [w[2], -1] as const)].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const from = Math.min(...t.writes.map((w) => w[2]));
  const to = Math.max(...t.writes.map((w) => w[2]));
  const at = new Map<number, number>();
  const gaps: Gap[] = [];
  let level = 0;
  let answered = 0;
  let prev = from;
  let gap: Gap | undefined;
  for (const [time, delta] of events) {
    if (time > from && time <= to) {
      const span = time - Math.max(prev, from);
      if (span > 0) at.set(level, (at.get(level) ?? 0) + span);
    }
    prev = time;
    level += delta;
    if (delta < 0) answered++;
    if (level < full && !gap && time >= from && time < to) gap = { start: time, ms: 0, answered, low: level };
    else if (gap && level < full) gap.low = Math.min(gap.low, level);
    else if (gap && level >= full) {
      gap.ms = time - gap.start;
      gaps.push(gap);
      gap = undefined;
    }
  }
  gaps.forEach((g) => (g.start -= from));
  return { at, gaps };
}

/** Mean ms per request of each leg: ferry sends → stand-in has the body → stand-in answers → ferry has the answer. */
function legs(standIn: StandInTimeline, ferry: [string, number, number][]): { request: number; service: number; response: number } {
  const sent = new Map(ferry.map(([id, start, done]) => [id, { start, done }]));
  let request = 0;
  let service = 0;
  let response = 0;
  let n = 0;
  for (const [id, arrived, answered] of standIn.writes) {
    const f = sent.get(id);
    if (!f) continue;
    request += arrived - f.start;
    service += answered - arrived;
    response += f.done - answered;
    n++;
  }
  return { request: request / n, service: service / n, response: response / n };
}

const standIn = await StandIn.start();
const { url } = standIn;
const dir = mkdtempSync(join(tmpdir(), 'ferry-latency-probe-'));
try {
  // The bench's stand-in has served several runs before its latency runs: warm this one up the same way.
  const warm = join(dir, 'warm.csv');
  await writeDealsCsv(warm, 5000);
  await standIn.mode({ kind: 'instant' });
  execFileSync(process.execPath, [tsx, resolve(import.meta.dirname, 'ferry-run.ts'), url, warm, '16', '100000'], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (const concurrency of levels.length > 0 ? levels : [16, 64]) {
    const bound = latencyMs > 0 ? (concurrency * 1000) / latencyMs : Number.POSITIVE_INFINITY;
    const rows = Number(process.env.PROBE_ROWS ?? Math.round(bound * seconds));
    const csv = join(dir, `deals-${rows}.csv`);
    await writeDealsCsv(csv, rows);
    await standIn.mode({ kind: 'latency', ms: latencyMs }, { trace: true });
    const trace = join(dir, `trace-${concurrency}.json`);
    execFileSync(process.execPath, [tsx, resolve(import.meta.dirname, 'ferry-run.ts'), url, csv, String(concurrency), '100000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, PROBE_TRACE: trace },
    });
    const { stats } = await standIn.stats();
    const timeline = await standIn.timeline();
    const window = stats.lastWriteAt - stats.firstWriteAt;
    const ratio = (stats.written * 1000) / window / bound;
    const { at, gaps } = inFlightProfile(timeline, concurrency);
    const full = [...at].filter(([l]) => l >= concurrency).reduce((s, [, ms]) => s + ms, 0);
    const meanInFlight = [...at].reduce((s, [l, ms]) => s + l * ms, 0) / window;
    console.log(`c${concurrency}: ${stats.written} rows in ${window.toFixed(0)} ms, ratio ${ratio.toFixed(3)}, mean in flight ${meanInFlight.toFixed(1)}, at full ${((100 * full) / window).toFixed(1)}% of the window`);
    const { requests, early: firstMs, ...samples } = JSON.parse(readFileSync(trace, 'utf8')) as { requests: [string, number, number][]; early: unknown[] };
    if (firstMs.length > 0) console.log(`  ferry early [ms, phase, in flight, queued, tick gap, cpu]: ${firstMs.map((e) => JSON.stringify(e)).join(' ')}`);
    const leg = legs(timeline, requests);
    const cycle = (concurrency * window) / stats.written;
    console.log(`  ratio against concurrency ÷ the stand-in's own mean time per request (${leg.service.toFixed(2)} ms; its timers are aimed to hold ${latencyMs} ms on average, see HoldTimer): ${((ratio * leg.service) / latencyMs).toFixed(3)}`);
    console.log(`  per request, mean ms: cycle ${cycle.toFixed(2)} = send→arrived ${leg.request.toFixed(2)} + service ${leg.service.toFixed(2)} + answered→ferry has it ${leg.response.toFixed(2)} + slot idle before next send ${(cycle - leg.request - leg.service - leg.response).toFixed(2)}`);
    const from = Math.min(...timeline.writes.map((w) => w[2]));
    if (process.env.PROBE_FIRST) {
      const firstSent = Math.min(...requests.map((r) => r[1]));
      const show = (xs: number[]) => xs.sort((a, b) => a - b).slice(0, Number(process.env.PROBE_FIRST)).map((x) => x.toFixed(0)).join(' ');
      console.log(`  first sends (ms after ferry's first): ${show(requests.map((r) => r[1] - firstSent))}`);
      console.log(`  first arrivals: ${show(timeline.writes.map((w) => w[1] - firstSent))}`);
      console.log(`  first answers: ${show(timeline.writes.map((w) => w[2] - firstSent))}`);
      console.log(`  first answers back in ferry: ${show(requests.map((r) => r[2] - firstSent))}`);
    }
    const perSlice = new Array<number>(Math.ceil(window / 500) + 1).fill(0);
    for (const w of timeline.writes) perSlice[Math.floor((w[2] - from) / 500)]!++;
    console.log(`  ratio per 500 ms: ${perSlice.map((n) => ((n * 2) / bound).toFixed(2)).join(' ')}`);
    const f = samples as { cpuMs?: number; runQueueMs?: number };
    console.log(`  waiting for a CPU (run queue) in the window: ferry ${f.runQueueMs?.toFixed(0)} ms, stand-in ${timeline.runQueueMs?.toFixed(0)} ms; CPU: ferry ${f.cpuMs?.toFixed(0)} ms (run), stand-in ${timeline.cpuMs?.toFixed(0)} ms; stand-in loop late ${timeline.loopLateMs?.toFixed(0)} ms`);
    console.log(`  ferry's samples: ${JSON.stringify(samples)}`);
    const idle = gaps.reduce((s, g) => s + g.ms, 0);
    console.log(`  ${gaps.length} stretches below ${concurrency}, ${idle.toFixed(0)} ms in all; longest:`);
    const early = Number(process.env.PROBE_EARLY_MS ?? 0);
    const shown = early > 0 ? gaps.filter((g) => g.start < early && g.ms > 2) : [...gaps].sort((a, b) => b.ms - a.ms).slice(0, gapsShown);
    for (const g of shown) {
      console.log(`    at ${g.start.toFixed(0)} ms, ${g.ms.toFixed(1)} ms, down to ${g.low}, after ${g.answered} answers`);
    }
  }
} finally {
  standIn.close();
  rmSync(dir, { recursive: true, force: true });
}
