/**
 * Whole syncs against the stand-in service (test/support/stand-in) under faults:
 * a random mix of 429s, 500s and dropped connections must still land every
 * record exactly once, and a service that is down must be ridden out for the
 * outage budget, then stop the run with exit 3 and the last error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StandInService } from '../../support/stand-in/service.js';
import { runProject } from '../../../src/pipeline/run-project.js';

const ROWS = 300;

let dir: string;
let service: StandInService;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ferry-faults-'));
  service = await new StandInService().start();
  const lines = ['id,name,amount', ...Array.from({ length: ROWS }, (_, i) => `r${i},row ${i},${i}`)];
  writeFileSync(join(dir, 'rows.csv'), `${lines.join('\n')}\n`);
});

afterEach(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(extra = ''): string {
  const path = join(dir, 'ferry.yaml');
  writeFileSync(
    path,
    `version: 1
service: { baseUrl: ${service.url}, apiKey: test-key, concurrency: 8, maxRequestsPerSecond: 5000${extra} }
state: { url: "sqlite:state.db" }
syncs:
  - name: rows
    source: { type: csv, path: rows.csv, primaryKey: id }
    target:
      type: row
      source: { name: faults }
      objectType: { name: item, fields: { amount: int } }
      map: { id: id, name: name, public: true, fields: { amount: amount } }
`,
  );
  return path;
}

function capturingLogger() {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as (typeof lines)[number]);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

describe('a sync under faults', () => {
  it('lands every record exactly once through 10 % 429s, 5 % 500s and 2 % dropped connections', async () => {
    service.setMode({ kind: 'faults', throttled: 0.1, failed: 0.05, dropped: 0.02, retryAfterSeconds: 1 }, 7);
    const [summary] = await runProject({ configFile: writeConfig(), syncNames: [], logger: pino({ level: 'silent' }) });

    expect(summary).toMatchObject({ status: 'succeeded', exitCode: 0, counts: { read: ROWS, pushed: ROWS, failed: 0 } });
    const stats = service.stats;
    // The mix really happened, and did not stop the run.
    expect(stats.throttled).toBeGreaterThan(0);
    expect(stats.failed).toBeGreaterThan(0);
    expect(stats.dropped).toBeGreaterThan(0);
    // Exactly once in the end state: every id, no other, each with its own body.
    const rows = [...service.records.entries()].filter(([key]) => key.startsWith('row '));
    expect(rows).toHaveLength(ROWS);
    const byId = new Map(rows.map(([, stored]) => {
      const body = JSON.parse(stored.body) as { id: string; name: string; fields: { amount: { value: number } } };
      return [body.id, body];
    }));
    for (let i = 0; i < ROWS; i++) expect(byId.get(`r${i}`)).toMatchObject({ name: `row ${i}`, fields: { amount: { value: i } } });

    // Nothing is left to push: a re-run against a healthy service sends no record.
    service.setMode({ kind: 'instant' });
    const before = service.stats.written;
    const [again] = await runProject({ configFile: writeConfig(), syncNames: [], logger: pino({ level: 'silent' }) });
    expect(again).toMatchObject({ status: 'succeeded', counts: { unchanged: ROWS, pushed: 0 } });
    expect(service.stats.written).toBe(before);
  });

  it('rides out an outage shorter than the budget and lands everything', async () => {
    service.setMode({ kind: 'down', answer: 'error' });
    const recover = setTimeout(() => service.setMode({ kind: 'instant' }), 1500);
    try {
      const [summary] = await runProject({ configFile: writeConfig(', outageBudgetSeconds: 60'), syncNames: [], logger: pino({ level: 'silent' }) });
      expect(summary).toMatchObject({ status: 'succeeded', counts: { pushed: ROWS } });
      expect([...service.records.keys()].filter((k) => k.startsWith('row '))).toHaveLength(ROWS);
    } finally {
      clearTimeout(recover);
    }
  });

  it('rides a mid-run outage as a whole: one probe at a time while down, every record landed once after', async () => {
    // Healthy for the setup and the first records, then 500 for everything for 2 s.
    service.setMode({ kind: 'latency', ms: 5 });
    let requestsAtDown = -1;
    let requestsWhileDown = -1;
    const watch = setInterval(() => {
      if (requestsAtDown < 0 && service.stats.written >= 50) {
        requestsAtDown = service.stats.requests;
        service.setMode({ kind: 'down', answer: 'error' });
        setTimeout(() => {
          requestsWhileDown = service.stats.requests - requestsAtDown;
          service.setMode({ kind: 'latency', ms: 5 });
        }, 2000);
      }
    }, 1);
    try {
      const [summary] = await runProject({ configFile: writeConfig(', outageBudgetSeconds: 60'), syncNames: [], logger: pino({ level: 'silent' }) });
      expect(summary).toMatchObject({ status: 'succeeded', exitCode: 0, counts: { read: ROWS, pushed: ROWS, failed: 0 } });
      // Without the breaker each of the 8 slots retried on its own backoff: hundreds of requests in 2 s.
      // With it: what was in flight, the failures in a row that open it, and a probe at most every second.
      expect(requestsWhileDown).toBeGreaterThan(0);
      expect(requestsWhileDown).toBeLessThan(40);
      const rows = [...service.records.entries()].filter(([key]) => key.startsWith('row '));
      expect(rows).toHaveLength(ROWS);
      expect(service.stats.changedBodies).toBe(0);
    } finally {
      clearInterval(watch);
    }
  });

  it('stops with exit 3 and the last error once the outage outlasts the budget, having said so while retrying', async () => {
    // Healthy for the setup and the first records, then down for good.
    let answered = 0;
    const original = service.setMode.bind(service);
    original({ kind: 'instant' });
    const down = setInterval(() => {
      answered = service.stats.written;
      if (answered >= 50) {
        original({ kind: 'down', answer: 'error' });
        clearInterval(down);
      }
    }, 1);
    const { lines, logger } = capturingLogger();
    try {
      const [summary] = await runProject({ configFile: writeConfig(', outageBudgetSeconds: 2'), syncNames: [], logger });
      expect(summary).toMatchObject({ status: 'failed', exitCode: 3 });
      expect(summary!.error).toMatch(/HTTP 500/);
      expect(lines.some((l) => l.level === 40 && /retrying until it recovers or the outage budget is spent/.test(l.msg))).toBe(true);
      // What was acknowledged before the outage is checkpointed: a later run pushes only the rest.
      service.setMode({ kind: 'instant' });
      const acknowledged = summary!.counts.pushed;
      expect(acknowledged).toBeGreaterThan(0);
      const [rest] = await runProject({ configFile: writeConfig(), syncNames: [], logger: pino({ level: 'silent' }) });
      expect(rest).toMatchObject({ status: 'succeeded' });
      expect(rest!.counts.pushed + rest!.counts.unchanged).toBe(ROWS);
      expect(rest!.counts.unchanged).toBe(acknowledged);
    } finally {
      clearInterval(down);
    }
  });
});
