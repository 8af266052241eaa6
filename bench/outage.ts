/**
 * What a full outage of the service costs a run (docs/sink.md, "Outages"):
 * the deals sync against the stand-in service answering in a fixed latency,
 * once without an outage and once with the stand-in answering 500 to
 * everything for OUTAGE_S seconds, starting START_S seconds after the first
 * write. Prints the requests the stand-in saw while it was down, the extra
 * seconds (outage run − plain run − outage), and whether every record landed
 * exactly once. Not part of `npm run bench` (it takes a minute): run it as
 *
 *   npx tsx bench/outage.ts            # 5,000 records, 10 ms, c8, 20 s outage from 3 s
 *   OUTAGE_S=3 RECORDS=3000 npx tsx bench/outage.ts
 *
 * ferry runs in a process of its own (`ferry run`, bench/support/ferry-cli.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDealsCsv } from './support/deals.js';
import { ferryCliRun } from './support/ferry-cli.js';
import { StandInService } from '../test/support/stand-in/service.js';

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

async function once(csv: string, outage: boolean): Promise<Outcome> {
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

const dir = mkdtempSync(join(tmpdir(), 'ferry-outage-'));
try {
  const csv = join(dir, 'deals.csv');
  await writeDealsCsv(csv, RECORDS);
  const plain = await once(csv, false);
  const down = await once(csv, true);
  console.log(JSON.stringify({ records: RECORDS, latencyMs: LATENCY_MS, concurrency: CONCURRENCY, startS: START_S, outageS: OUTAGE_S, plain, outage: down }));
  console.log(
    `outage of ${OUTAGE_S} s: ${down.requestsWhileDown} requests while down; run ${down.seconds.toFixed(1)} s against ${plain.seconds.toFixed(1)} s without, ` +
      `${(down.seconds - plain.seconds - OUTAGE_S).toFixed(1)} s extra; status ${down.status}; ${down.stored} of ${RECORDS} records stored`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
