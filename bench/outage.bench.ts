/**
 * What a full outage of the service costs a run (docs/sink.md, "Outages"):
 * the deals sync against the stand-in service answering in a fixed latency,
 * once without an outage and once with the stand-in answering 500 to
 * everything for OUTAGE_S seconds, starting START_S seconds after the first
 * write. Prints the requests the stand-in saw while it was down, the extra
 * seconds (outage run − plain run − outage), and whether every record landed
 * exactly once. A row group of `npm run bench` (about a minute); alone:
 *
 *   BENCH_ONLY=outage npm run bench        # 5,000 records, 10 ms, c8, 20 s outage from 3 s
 *   OUTAGE_S=3 RECORDS=3000 BENCH_ONLY=outage npm run bench
 *
 * ferry runs in a process of its own (`ferry run`, bench/support/ferry-cli.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDealsCsv } from './support/deals.js';
import { ferryCliRun } from './support/ferry-cli.js';
import { StandInService } from '../test/support/stand-in/service.js';
import { judged } from './support/rows.js';
import type { BenchRow } from './support/rows.js';

const RECORDS = Number(process.env.RECORDS ?? 5000);
const LATENCY_MS = Number(process.env.LATENCY_MS ?? 10);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const START_S = Number(process.env.START_S ?? 3);
const OUTAGE_S = Number(process.env.OUTAGE_S ?? 20);

interface Outcome {
  seconds: number;
  status: string | undefined;
  requests: number;
  requestsWhileDown: number;
  written: number;
  stored: number;
}

async function once(dir: string, csv: string, outage: boolean): Promise<Outcome> {
  const service = await new StandInService({ kind: 'latency', ms: LATENCY_MS }).start();
  let downAt = 0;
  let upAt = 0;
  let requestsAtDown = 0;
  let requestsAtUp = 0;
  const watch = setInterval(() => {
    const { firstWriteAt, requests } = service.stats;
    if (!outage || firstWriteAt === 0) return;
    const now = performance.now();
    if (downAt === 0 && now - firstWriteAt >= START_S * 1000) {
      downAt = now;
      requestsAtDown = requests;
      service.setMode({ kind: 'down', answer: 'error' });
    } else if (downAt !== 0 && upAt === 0 && now - downAt >= OUTAGE_S * 1000) {
      upAt = now;
      requestsAtUp = service.stats.requests;
      service.setMode({ kind: 'latency', ms: LATENCY_MS });
    }
  }, 5);
  const result = await ferryCliRun(mkdtempSync(join(dir, 'project-')), csv, service.url, { concurrency: CONCURRENCY, maxRequestsPerSecond: 100_000 });
  clearInterval(watch);
  const outcome = {
    seconds: result.durationMs / 1000,
    status: result.status,
    requests: service.stats.requests,
    requestsWhileDown: outage ? requestsAtUp - requestsAtDown : 0,
    written: service.stats.written,
    stored: service.records.size,
  };
  await service.close();
  return outcome;
}

/** The group's rows: requests while down, time beyond the plain run plus the outage, and the run's verdict. */
export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-outage-'));
  try {
    const csv = join(dir, 'deals.csv');
    await writeDealsCsv(csv, RECORDS);
    const plain = await once(dir, csv, false);
    const down = await once(dir, csv, true);
    const extra = +(down.seconds - plain.seconds - OUTAGE_S).toFixed(1);
    const exactlyOnce = down.status === 'succeeded' && down.stored === RECORDS ? 1 : 0;
    return judged([
      { name: `requests seen while down (${OUTAGE_S} s outage from ${START_S} s, ${RECORDS} records, ${LATENCY_MS} ms, c${CONCURRENCY})`, value: down.requestsWhileDown, goal: '≤ 100' },
      { name: `seconds beyond the no-outage run (${plain.seconds.toFixed(1)} s) + the outage`, value: extra, goal: '≤ 5' },
      { name: `exit 0 and every record stored exactly once (status ${down.status ?? 'none'}, ${down.stored} of ${RECORDS})`, value: exactlyOnce, goal: '= 1' },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
