/**
 * The runner takes what a source already holds (BufferedIterator.takeBuffered
 * in src/sdk) before it awaits next(), and uses next() alone when the source
 * does not offer it: the same records, in the same order, the same counts and
 * cursor either way, and a failure while taking reported as one in next().
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareSync, selectSyncs } from '../../../src/pipeline/prepare.js';
import { runSync, type RunOptions } from '../../../src/pipeline/run-sync.js';
import { toUnits, type Unit } from '../../../src/pipeline/units.js';
import { loadProject } from '../../../src/runtime/project.js';
import type { BufferedIterator, SourceRecord } from '../../../src/sdk/index.js';
import { openStateStore, type StateStore } from '../../../src/state/index.js';
import { FakeService } from '../sink/fake-service.js';

/**
 * A source whose records arrive in pages of 7, as from a paged API: next()
 * fetches a page when none is held; takeBuffered (with `take: true`) hands
 * over the rest of the page. `failAt`: the page holding that record is torn,
 * found as the record is reached, whichever way it is read.
 */
const SOURCE = `export default {
  kind: 'source', name: 'paged', sdkVersion: 1,
  options: { safeParse: (o) => ({ success: true, data: o }), parse: (o) => o },
  keys: () => ({ primaryKey: ['id'] }),
  async discover() { return []; },
  read(ctx) {
    const { total, take, failAt } = ctx.options;
    const stats = (globalThis.pagedStats = { takes: 0, taken: 0, nexts: 0 });
    const page = [];
    let made = 0;
    const shift = (via) => {
      const record = page.shift();
      if (record.data.n === failAt) {
        stats.failedIn = via;
        throw new Error('page torn');
      }
      return record;
    };
    const iterator = {
      [Symbol.asyncIterator]() { return this; },
      async next() {
        stats.nexts++;
        await new Promise((resolve) => setImmediate(resolve));
        while (page.length < 7 && made < total) {
          const n = made++;
          page.push({ data: { id: 'r' + n, n }, origin: { table: 'paged', key: 'r' + n }, cursor: n });
        }
        return page.length === 0 ? { done: true, value: undefined } : { done: false, value: shift('next') };
      },
    };
    if (take) {
      iterator.takeBuffered = (max) => {
        stats.takes++;
        const out = [];
        while (out.length < max && page.length > 0) out.push(shift('take'));
        stats.taken += out.length;
        return out;
      };
    }
    return iterator;
  },
};
`;

interface Stats {
  takes: number;
  taken: number;
  nexts: number;
  failedIn?: 'next' | 'take';
}

const stats = (): Stats => (globalThis as { pagedStats?: Stats }).pagedStats!;

describe('the runner and takeBuffered', () => {
  let dir: string;
  let store: StateStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-take-buffered-'));
    writeFileSync(join(dir, 'paged-source.mjs'), SOURCE);
    store = await openStateStore('sqlite::memory:');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(source: { total: number; take: boolean; failAt?: number }, extra: Partial<RunOptions> = {}) {
    writeFileSync(
      join(dir, 'ferry.yaml'),
      `version: 1
service: { baseUrl: "http://127.0.0.1:9", apiKey: unused }
syncs:
  - name: paged
    source: { type: ./paged-source.mjs, total: ${source.total}, take: ${source.take}${source.failAt === undefined ? '' : `, failAt: ${source.failAt}`} }
    incremental: { cursor: n }
    target:
      type: row
      source: { name: app }
      objectType: { name: item, fields: { n: int } }
      map: { id: id, name: id, public: true, fields: { n: n } }
`,
    );
    const config = await loadProject(join(dir, 'ferry.yaml'));
    const prepared = await prepareSync(config, selectSyncs(config, ['paged'])[0]!);
    return runSync(prepared, { store, service: new FakeService() }, {
      signal: new AbortController().signal,
      logger: pino({ level: 'silent' }),
      concurrency: 4,
      maxRequestsPerSecond: 1_000_000,
      maxAttempts: 1,
      fullRefresh: true,
      ...extra,
    });
  }

  it('takes what the source holds, with the same records, order, counts and cursor as next() alone', async () => {
    const total = 1000;
    const order = async (take: boolean): Promise<string[]> => {
      const origins: string[] = [];
      await run({ total, take }, { dryRun: true, onSample: (sample) => origins.push(sample.origin) });
      return origins;
    };
    const plainOrder = await order(false);
    expect(plainOrder).toHaveLength(total);
    expect(await order(true)).toEqual(plainOrder);

    const plain = await run({ total, take: false });
    expect(stats()).toMatchObject({ takes: 0, nexts: total + 1 });
    const fast = await run({ total, take: true });
    // Most records came without a next(): one per page (and the end) is left.
    expect(stats().taken).toBeGreaterThan(total / 2);
    expect(stats().nexts + stats().taken).toBe(total + 1);
    expect(fast.counts).toEqual(plain.counts);
    expect(fast.counts).toMatchObject({ read: total, created: total });
    expect(fast.cursor).toEqual(plain.cursor);
    expect(fast.cursor).toEqual({ value: total - 1, key: `r${total - 1}` });
  });

  it('reports a failure while taking as FERRY_SOURCE_READ_FAILED, as a failure in next() is', async () => {
    // Record 600 is past the records sampled for the object type, in a page reached by a take.
    const failure = async (take: boolean): Promise<unknown> => run({ total: 1000, take, failAt: 600 }).then(() => undefined, (error: unknown) => error);
    const viaNext = await failure(false);
    expect(stats().failedIn).toBe('next');
    const viaTake = await failure(true);
    expect(stats().failedIn).toBe('take');
    expect(viaNext).toMatchObject({ code: 'FERRY_SOURCE_READ_FAILED', message: 'the source of sync "paged" failed while being read: page torn' });
    expect(viaTake).toMatchObject({ code: 'FERRY_SOURCE_READ_FAILED', message: 'the source of sync "paged" failed while being read: page torn' });
  });
});

describe('toUnits and takeBuffered', () => {
  const records = (take: boolean): AsyncIterable<SourceRecord> => {
    const held: SourceRecord[] = [1, 2, 3].map((n) => ({ data: { id: `r${n}`, g: 'x' }, origin: { file: 'f.csv', line: n + 1 }, cursor: n, dataText: `t${n}` }));
    const iterator: BufferedIterator<SourceRecord> = {
      next: async () => (held.length > 0 ? { done: false, value: held.shift()! } : { done: true, value: undefined }),
    };
    if (take) iterator.takeBuffered = (max) => held.splice(0, max);
    return { [Symbol.asyncIterator]: () => iterator };
  };

  it('maps taken records into units as next() does', async () => {
    const viaNext: Unit[] = [];
    for await (const unit of toUnits(records(false), { primaryKey: ['id'] })) viaNext.push(unit);
    const units = toUnits(records(true), { primaryKey: ['id'] })[Symbol.asyncIterator]() as BufferedIterator<Unit>;
    const first = await units.next();
    const taken = units.takeBuffered!(5);
    // A unit's input is a getter (read only when asked for): compared as plain data.
    const plain = ({ input, inputText, originKey, origin, position }: Unit) => ({ input, inputText, originKey, origin, position });
    expect([first.value!, ...taken].map(plain)).toEqual(viaNext.map(plain));
    expect(plain(taken[0]!)).toEqual({ input: { id: 'r2', g: 'x' }, inputText: 't2', originKey: undefined, origin: expect.stringContaining('f.csv'), position: { value: 2, key: 'r2' } });
    expect(await units.next()).toMatchObject({ done: true });
  });

  it('offers it only when the source does, and never for groups', () => {
    expect((toUnits(records(false), {})[Symbol.asyncIterator]() as BufferedIterator<Unit>).takeBuffered).toBeUndefined();
    expect((toUnits(records(true), { groupBy: 'g' })[Symbol.asyncIterator]() as BufferedIterator<Unit>).takeBuffered).toBeUndefined();
  });
});
