/**
 * What the push row groups (bench/push-*.bench.ts) share: a stand-in service
 * in a process of its own, a scratch folder, deals CSVs, `ferry run` of the
 * deals sync in a fresh project (through the CLI), the reference client, and
 * autocannon as the stand-in's own HTTP limit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { StandIn } from '../../test/support/stand-in/client.js';
import { writeDealsCsv, type PushSettings } from './deals.js';
import { ferryCliRun, measuredNode, type CliRun, type ProcessFigures } from './ferry-cli.js';

const REFERENCE_CLIENT = resolve(import.meta.dirname, '../reference-client.mjs');

/** As the rows before the adaptive limits ran ferry: 16 in flight, a ceiling that never binds. */
export const C16: PushSettings = { concurrency: 16, maxRequestsPerSecond: 100_000 };

export interface PushKit {
  readonly standIn: StandIn;
  readonly dir: string;
  /** A deals CSV of `n` rows (made once per size). */
  csv(n: number): Promise<string>;
  /** One `ferry run` of the deals sync over `csv`, in a fresh project and state; throws unless it succeeded. */
  ferry(csv: string, settings: PushSettings, options?: { nodeFlags?: readonly string[] }): Promise<CliRun>;
  /** The reference client over `csv` (after a ferry run made the source and object type). */
  reference(csv: string, concurrency?: number): Promise<ProcessFigures>;
}

/** Runs `body` with a kit, and stops the stand-in and removes the folder after. */
export async function withPushKit<T>(label: string, body: (kit: PushKit) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `ferry-${label}-bench-`));
  const standIn = await StandIn.start();
  const made = new Map<number, string>();
  const kit: PushKit = {
    standIn,
    dir,
    async csv(n) {
      const known = made.get(n);
      if (known) return known;
      const path = join(dir, `deals-${n}.csv`);
      await writeDealsCsv(path, n);
      made.set(n, path);
      return path;
    },
    async ferry(csv, settings, options = {}) {
      process.stderr.write(`${label} bench: ferry run c${settings.concurrency ?? 'default'} ceiling ${settings.maxRequestsPerSecond ?? 'default'} ${csv}\n`);
      const result = await ferryCliRun(mkdtempSync(join(dir, 'project-')), csv, standIn.url, settings, options);
      if (result.status !== 'succeeded') throw new Error(`ferry run ${result.status}: ${result.error ?? ''}`);
      return result;
    },
    async reference(csv, concurrency = 16) {
      const { stdout, ...figures } = await measuredNode(REFERENCE_CLIENT, [standIn.url, csv, String(concurrency)], { cwd: dir });
      const { failed } = JSON.parse(stdout) as { failed: number };
      if (failed > 0) throw new Error(`the reference client had ${failed} failed requests`);
      return figures;
    },
  };
  try {
    return await body(kit);
  } finally {
    standIn.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Requests a second autocannon gets from the service at `url` over `connections` (3 s). */
export async function httpLimit(url: string, connections: number): Promise<number> {
  const body = JSON.stringify({ id: 'x', sourceId: '00000000-0000-4000-8000-000000000000', public: true, objectTypeId: '00000000-0000-4000-8000-000000000000', name: 'x', fields: { stage: { value: 'Won', fieldType: 'string' } } });
  const result = await autocannon({ url: `${url}/v1/rows`, method: 'POST', body, headers: { 'content-type': 'application/json' }, connections, duration: 3 });
  return result.requests.average;
}
