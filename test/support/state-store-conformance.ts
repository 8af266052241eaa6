/**
 * The state store's contract, as tests any backend runs:
 *
 *   describeStateStoreConformance('sqlite', () => sqliteHarness());
 *
 * One part per port of src/state/ports.ts (ledger, dead-letter, cursors,
 * runs, locks, learnt service limits, admin); `ports` runs only some, for a
 * backend that implements only those. A part may use other ports to set up
 * or commit (a ledger test checkpoints), never to check what it tests.
 *
 * A harness points at one fresh, empty store location per test; every
 * `open()` is a new connection to it (so a second `open()` sees only what the
 * first committed). Backend-specific behaviour (file layout, corrupt files,
 * transaction rollback under a sabotaged disk) is tested next to the backend.
 */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { emptyCounts, RUN_COUNTS_ZERO, STATE_PORTS } from '../../src/state/index.js';
import type { CursorPosition, FailureWrite, StatePort, StateStore, UnlistedStateMethods } from '../../src/state/index.js';

/** Every port, in the order the suite runs them. */
const ALL_PORTS = Object.keys(STATE_PORTS) as StatePort[];

export interface StateStoreOpenOptions {
  /** Milliseconds since the epoch; the store must use it for leases and run times. */
  now?: () => number;
  /** Buffered writes that trigger an automatic commit (which never moves a cursor). */
  batchSize?: number;
}

export interface StateStoreHarness {
  /** A new connection to this harness's store location. */
  open(options?: StateStoreOpenOptions): Promise<StateStore>;
  /** Drops the location (after every connection was closed). */
  dispose?(): Promise<void> | void;
}

const T0 = Date.parse('2024-03-01T12:00:00.000Z');

/** A clock tests move by hand. */
function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let t = T0;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

function failure(sync: string, remoteId: string | null, extra: Partial<FailureWrite> = {}): FailureWrite {
  return { sync, runId: null, remoteId, origin: null, kind: 'rejected', reason: 'no', status: 422, errorBody: null, body: null, sourceRecord: null, ...extra };
}

async function collect(pages: AsyncIterable<readonly string[]>): Promise<string[]> {
  const out: string[] = [];
  for await (const page of pages) out.push(...page);
  return out;
}

export function describeStateStoreConformance(
  name: string,
  createHarness: () => Promise<StateStoreHarness> | StateStoreHarness,
  ports: readonly StatePort[] = ALL_PORTS,
): void {
  describe(`StateStore conformance: ${name}`, () => {
    it('lists every method of the store under one port', () => {
      expectTypeOf<UnlistedStateMethods>().toEqualTypeOf<never>();
      const listed = Object.values(STATE_PORTS).flat();
      expect(new Set(listed).size).toBe(listed.length);
    });

    /** One port's part of the contract: its methods exist, then its behaviour. */
    const port = (which: StatePort, body: () => void): void => {
      if (!ports.includes(which)) return;
      describe(`${which} port`, () => {
        it(`implements every method of the ${which} port`, async () => {
          const store = await fresh();
          for (const method of STATE_PORTS[which]) expect(typeof (store as unknown as Record<string, unknown>)[method], method).toBe('function');
        });
        body();
      });
    };

    const opened: StateStore[] = [];
    const harnesses: StateStoreHarness[] = [];
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      for (const harness of harnesses.splice(0)) await harness.dispose?.();
    });

    /** A fresh location; `open` returns connections to it that are closed after the test. */
    async function location(): Promise<{ open: (options?: StateStoreOpenOptions) => Promise<StateStore> }> {
      const harness = await createHarness();
      harnesses.push(harness);
      return {
        open: async (options) => {
          const store = await harness.open(options);
          opened.push(store);
          return store;
        },
      };
    }
    async function fresh(options?: StateStoreOpenOptions): Promise<StateStore> {
      return (await location()).open(options);
    }
    const ack = (store: StateStore, remoteId: string, fingerprint = `fp-${remoteId}`, sync = 'deals') =>
      store.recordAcknowledged({ sync, remoteId, fingerprint, recordId: `rec-${remoteId}`, origin: `deals.csv:${remoteId}` });

    port('ledger', () => {
      it('round-trips an acknowledgement', async () => {
        const store = await fresh();
        await ack(store, 'a');
        await store.flush();
        expect(await store.ledgerEntry('deals', 'a')).toMatchObject({
          sync: 'deals',
          remoteId: 'a',
          fingerprint: 'fp-a',
          recordId: 'rec-a',
          status: 'pushed',
          attempts: 0,
          lastError: null,
          origin: 'deals.csv:a',
        });
        expect(await store.ledgerEntry('deals', 'missing')).toBeUndefined();
        expect(await store.ledgerEntry('other', 'a')).toBeUndefined();
      });

      it('keeps syncs apart and overwrites on re-acknowledgement', async () => {
        const store = await fresh();
        await ack(store, 'a', 'v1');
        await ack(store, 'a', 'other-sync', 'notes');
        await store.flush();
        await ack(store, 'a', 'v2');
        await store.flush();
        expect((await store.ledgerEntry('deals', 'a'))?.fingerprint).toBe('v2');
        expect((await store.ledgerEntry('notes', 'a'))?.fingerprint).toBe('other-sync');
      });

      it('applies many acknowledgements of one commit in order: a record acknowledged again keeps its last, across statement boundaries', async () => {
        const store = await fresh();
        for (let i = 0; i < 130; i++) {
          // id-7 is acknowledged four times (the 4th, 8th, 56th and 121st write), its origin left out the last time.
          if (i === 55) await ack(store, 'id-7', 'v2');
          else if (i === 120) await store.recordAcknowledged({ sync: 'deals', remoteId: 'id-7', fingerprint: 'v3', recordId: 'rec-v3' });
          else await ack(store, i === 3 ? 'id-7' : `id-${i}`, i === 3 ? 'v1' : undefined);
        }
        await store.flush();
        expect(await store.ledgerEntry('deals', 'id-7')).toMatchObject({ fingerprint: 'v3', recordId: 'rec-v3', status: 'pushed', origin: 'deals.csv:id-7' });
        const found = await store.fingerprints('deals', Array.from({ length: 130 }, (_, i) => `id-${i}`));
        expect(found.size).toBe(127); // 130 writes, four of them to id-7: no id-3, id-55 or id-120
        expect(found.get('id-129')?.fingerprint).toBe('fp-id-129');
      });

      it('looks fingerprints up in large batches', async () => {
        const store = await fresh();
        for (let i = 0; i < 1234; i++) await ack(store, `id-${i}`);
        await store.flush();
        const wanted = Array.from({ length: 1300 }, (_, i) => `id-${i}`); // 66 of them unknown
        const found = await store.fingerprints('deals', wanted);
        expect(found.size).toBe(1234);
        expect(found.get('id-0')).toEqual({ fingerprint: 'fp-id-0', status: 'pushed', recordId: 'rec-id-0' });
        expect(found.get('id-1233')?.fingerprint).toBe('fp-id-1233');
        expect(found.has('id-1234')).toBe(false);
        expect((await store.fingerprints('deals', ['id-5', 'id-6', 'nope'])).size).toBe(2);
        expect((await store.fingerprints('deals', [])).size).toBe(0);
      });

      it('finds ids whatever their characters (quotes, backslashes, non-ASCII, numbers as text)', async () => {
        const store = await fresh();
        const odd = ['quote"d', "apo'strophe", 'back\\slash', 'ünïcödé', 'emoji 🚀', 'line\nbreak', '42', ' padded '];
        for (const id of odd) await ack(store, id);
        await store.flush();
        const found = await store.fingerprints('deals', [...odd, 'absent']);
        expect([...found.keys()].sort()).toEqual([...odd].sort());
        for (const id of odd) expect(found.get(id)?.fingerprint).toBe(`fp-${id}`);
      });

      it('keeps a source fingerprint with the acknowledgement it came with, and only with it', async () => {
        const store = await fresh();
        await store.recordAcknowledged({ sync: 'deals', remoteId: 'a', fingerprint: 'body-1', recordId: 'r', sourceFingerprint: 'src-1' });
        await store.recordAcknowledged({ sync: 'deals', remoteId: 'b', fingerprint: 'body-1', recordId: 'r' });
        await store.flush();
        // Every backend keeps it: without it an unchanged re-run maps every record again (no fast path).
        const hits = await store.fingerprints('deals', ['a', 'b']);
        expect(hits.get('a')).toEqual({ fingerprint: 'body-1', status: 'pushed', recordId: 'r', sourceFingerprint: 'src-1' });
        expect(hits.get('b')).toEqual({ fingerprint: 'body-1', status: 'pushed', recordId: 'r' });
        // A new one replaces it; a later acknowledgement without one clears it: it vouched for the old body only.
        await store.recordAcknowledged({ sync: 'deals', remoteId: 'b', fingerprint: 'body-1', recordId: 'r', sourceFingerprint: 'src-b' });
        await store.recordAcknowledged({ sync: 'deals', remoteId: 'a', fingerprint: 'body-2', recordId: 'r' });
        await store.flush();
        const after = await store.fingerprints('deals', ['a', 'b']);
        expect(after.get('a')).toEqual({ fingerprint: 'body-2', status: 'pushed', recordId: 'r' });
        expect(after.get('b')?.sourceFingerprint).toBe('src-b');
      });

      it('returns source fingerprints committed in one large batch to a later connection', async () => {
        const place = await location();
        const writer = await place.open({ batchSize: 10_000 });
        for (let i = 0; i < 1200; i++) {
          await writer.recordAcknowledged({ sync: 'deals', remoteId: `id-${i}`, fingerprint: `fp-${i}`, recordId: `r-${i}`, ...(i % 3 === 0 ? {} : { sourceFingerprint: `src-${i}` }) });
        }
        await writer.checkpoint('deals', { value: 1200 });
        const reader = await place.open();
        const hits = await reader.fingerprints('deals', Array.from({ length: 1200 }, (_, i) => `id-${i}`));
        expect(hits.size).toBe(1200);
        expect(hits.get('id-0')?.sourceFingerprint).toBeUndefined();
        expect(hits.get('id-1')).toEqual({ fingerprint: 'fp-1', status: 'pushed', recordId: 'r-1', sourceFingerprint: 'src-1' });
        expect(hits.get('id-1199')?.sourceFingerprint).toBe('src-1199');
        expect([...hits.values()].filter((h) => h.sourceFingerprint !== undefined)).toHaveLength(800);
      });

      it('tells per (remote id, source fingerprint) pair whether it is unchanged, and returns only the others in full', async () => {
        const store = await fresh();
        const acked = (remoteId: string, sourceFingerprint?: string, sync = 'deals') =>
          store.recordAcknowledged({ sync, remoteId, fingerprint: `body-${remoteId}`, recordId: `r-${remoteId}`, ...(sourceFingerprint ? { sourceFingerprint } : {}) });
        await acked('same', 'src-same');
        await acked('edited', 'src-old');
        await acked('no-print');
        await acked('failed', 'src-failed');
        await store.recordFailure(failure('deals', 'failed'));
        await acked('deleted', 'src-deleted');
        await store.recordDeleted('deals', 'deleted');
        await acked('elsewhere', 'src-elsewhere', 'notes');
        await store.flush();
        const ids = ['same', 'edited', 'no-print', 'failed', 'deleted', 'absent', 'elsewhere', 'same'];
        const prints = ['src-same', 'src-new', 'src-any', 'src-failed', 'src-deleted', 'src-absent', 'src-elsewhere', 'src-other'];
        const look = await store.unchangedAtSource('deals', ids, prints);
        // Only a pushed entry with exactly this source fingerprint is unchanged: the same id with another print is not.
        expect([...look.unchanged]).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
        expect(look.others.get('edited')).toEqual({ fingerprint: 'body-edited', status: 'pushed', recordId: 'r-edited', sourceFingerprint: 'src-old' });
        expect(look.others.get('no-print')).toEqual({ fingerprint: 'body-no-print', status: 'pushed', recordId: 'r-no-print' });
        expect(look.others.get('failed')?.status).toBe('failed');
        expect(look.others.get('deleted')?.status).toBe('deleted');
        expect(look.others.get('same')).toEqual({ fingerprint: 'body-same', status: 'pushed', recordId: 'r-same', sourceFingerprint: 'src-same' });
        expect(look.others.has('absent')).toBe(false);
        expect(look.others.has('elsewhere')).toBe(false);
        expect((await store.unchangedAtSource('deals', [], [])).unchanged).toHaveLength(0);
      });

      it('looks source fingerprints up in large batches, whatever the ids, and sees writes still in the buffer', async () => {
        const store = await fresh({ batchSize: 10_000 });
        const odd = ['quote"d', "apo'strophe", 'back\\slash', 'ünïcödé', 'emoji 🚀', 'line\nbreak', '42', ' padded '];
        const ids = [...Array.from({ length: 1234 }, (_, i) => `id-${i}`), ...odd];
        for (const id of ids) await store.recordAcknowledged({ sync: 'deals', remoteId: id, fingerprint: 'b', recordId: 'r', sourceFingerprint: `src-${id}` });
        // Not flushed: the look must commit what touches its ids first.
        const asked = [...ids, 'absent'];
        const prints = asked.map((id, i) => (i % 100 === 7 ? 'edited' : `src-${id}`));
        const look = await store.unchangedAtSource('deals', asked, prints);
        const changed = asked.filter((_, i) => look.unchanged[i] === 0);
        expect(changed).toEqual([...asked.filter((_, i) => i % 100 === 7), 'absent']);
        expect(look.others.size).toBe(changed.length - 1);
        expect(look.others.get('id-7')?.sourceFingerprint).toBe('src-id-7');
        expect(look.unchanged[ids.indexOf('emoji 🚀')]).toBe(1);
      });

      it('lets reads see writes still in the buffer, even before they were awaited', async () => {
        const store = await fresh();
        void ack(store, 'a', 'v1');
        expect((await store.fingerprints('deals', ['a'])).get('a')?.fingerprint).toBe('v1');
        expect((await store.ledgerEntry('deals', 'a'))?.status).toBe('pushed');
      });

      it('records a failure on the ledger and in the dead-letter', async () => {
        const store = await fresh();
        await ack(store, 'a', 'good');
        await store.recordFailure(
          failure('deals', 'a', {
            origin: 'deals.csv:7',
            reason: 'amount must be a number',
            errorBody: { error: { code: 'validation_error' } },
            body: { id: 'a', fields: { amount: 'lots' } },
            sourceRecord: { id: 'a', amount: 'lots', big: 12345678901234567890n, raw: Buffer.from('hi') },
            fingerprint: 'bad',
          }),
        );
        await store.flush();
        expect(await store.ledgerEntry('deals', 'a')).toMatchObject({ status: 'failed', fingerprint: 'bad', attempts: 1, lastError: 'amount must be a number', recordId: 'rec-a' });
        const [entry] = await store.failures();
        expect(entry).toMatchObject({
          sync: 'deals',
          remoteId: 'a',
          origin: 'deals.csv:7',
          kind: 'rejected',
          status: 422,
          errorBody: { error: { code: 'validation_error' } },
          body: { id: 'a', fields: { amount: 'lots' } },
          sourceRecord: { id: 'a', amount: 'lots', big: '12345678901234567890', raw: 'base64:aGk=' },
          attempts: 1,
        });
        expect(typeof entry?.id).toBe('number');
      });

      it('keeps the previous fingerprint when a failure carries none', async () => {
        const store = await fresh();
        await ack(store, 'a', 'good');
        await store.recordFailure(failure('deals', 'a', { status: 400 }));
        await store.recordFailure(failure('deals', 'new', { kind: 'invalid', status: null }));
        expect((await store.ledgerEntry('deals', 'a'))?.fingerprint).toBe('good');
        expect(await store.ledgerEntry('deals', 'new')).toMatchObject({ fingerprint: '', status: 'failed', recordId: null });
      });

      it('marks deletions and streams live ids in order across pages while deletes are recorded', async () => {
        const store = await fresh({ batchSize: 100 }); // auto-commits mid-iteration
        const n = 2503;
        for (let i = 0; i < n; i++) await ack(store, `id-${String(i).padStart(5, '0')}`);
        await store.recordDeleted('deals', 'id-00000');
        await store.recordDeleted('deals', 'never-seen');
        expect(await store.countLive('deals')).toBe(n - 1);
        expect((await store.ledgerEntry('deals', 'never-seen'))?.status).toBe('deleted');
        expect(await store.ledgerEntry('deals', 'id-00000')).toMatchObject({ status: 'deleted', fingerprint: 'fp-id-00000' });

        const seen: string[] = [];
        let deleted = 0;
        for await (const page of store.liveRemoteIdPages('deals')) {
          for (const id of page) {
            seen.push(id);
            if (id.endsWith('1')) {
              await store.recordDeleted('deals', id); // writes while iterating must not fail
              deleted++;
            }
          }
        }
        expect(deleted).toBeGreaterThan(200);
        expect(seen).toHaveLength(n - 1);
        expect(seen).toEqual([...seen].sort());
        expect(new Set(seen).size).toBe(n - 1);
        await store.flush();
        expect(await store.countLive('deals')).toBe(n - 1 - deleted);
        expect(await store.countLive('other')).toBe(0);
        expect(await collect(store.liveRemoteIdPages('other'))).toEqual([]);
      });

      it('tells whether a sync has any record pushed, counting writes not yet committed and nothing failed or deleted', async () => {
        const store = await fresh();
        expect(await store.hasLive('deals')).toBe(false);
        await store.recordFailure(failure('deals', 'refused', { status: 400 }));
        await store.recordDeleted('deals', 'gone');
        expect(await store.hasLive('deals')).toBe(false);
        await ack(store, 'a'); // buffered, not yet committed
        expect(await store.hasLive('deals')).toBe(true);
        expect(await store.hasLive('other')).toBe(false);
        await store.recordDeleted('deals', 'a');
        expect(await store.hasLive('deals')).toBe(false);
      });
    });

    port('cursors', () => {
      it('commits buffered acknowledgements and the cursor together', async () => {
        const where = await location();
        const store = await where.open();
        const reader = await where.open();
        const committed = async () => ({ cursor: await reader.cursor('deals'), acks: (await reader.fingerprints('deals', ['a', 'b'])).size });
        await ack(store, 'a');
        void ack(store, 'b'); // not awaited: the checkpoint still covers it
        expect(await committed()).toEqual({ cursor: undefined, acks: 0 });
        await store.checkpoint('deals', { value: '2024-03-01T00:00:00Z', key: 'b' });
        expect(await committed()).toEqual({ cursor: { value: '2024-03-01T00:00:00Z', key: 'b' }, acks: 2 });
      });

      it('never moves the cursor on an automatic flush or a plain flush', async () => {
        const where = await location();
        const store = await where.open({ batchSize: 3 });
        const reader = await where.open();
        await store.checkpoint('deals', { value: 1 });
        for (const id of ['a', 'b', 'c', 'd']) await ack(store, id);
        expect(await reader.cursor('deals')).toEqual({ value: 1 });
        await store.flush();
        expect(await reader.cursor('deals')).toEqual({ value: 1 });
        expect((await reader.fingerprints('deals', ['a', 'b', 'c', 'd'])).size).toBe(4);
        await store.checkpoint('deals', { value: 4 });
        expect(await reader.cursor('deals')).toEqual({ value: 4 });
      });

      it('leaves the cursor alone when checkpointing without one', async () => {
        const store = await fresh();
        await store.checkpoint('deals', { value: 'x' });
        await ack(store, 'a');
        await store.checkpoint('deals', undefined);
        expect(await store.cursor('deals')).toEqual({ value: 'x' });
        expect((await store.ledgerEntry('deals', 'a'))?.status).toBe('pushed');
      });

      it('keeps buffered acknowledgements (never the cursor) on a clean close, and refuses use after close', async () => {
        const where = await location();
        const store = await where.open();
        await store.checkpoint('deals', { value: 1 });
        await ack(store, 'a');
        await store.close();
        const reader = await where.open();
        expect(await reader.cursor('deals')).toEqual({ value: 1 });
        expect((await reader.fingerprints('deals', ['a'])).size).toBe(1);
        await expect(store.cursor('deals')).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR' });
        await store.close(); // idempotent
      });

      const precise: Array<[string, CursorPosition]> = [
        ['timestamptz with microseconds and zone', { value: '2024-03-01 12:00:00.123456+02', key: 'deal-42' }],
        ['numeric beyond a double', { value: '12345678901234567890.123' }],
        ['int8 beyond 2^53 as text, tie broken by key', { value: (9007199254740993n).toString(), key: '9007199254740993' }],
        ['plain number', { value: 0.1 }],
        ['large safe integer', { value: Number.MAX_SAFE_INTEGER }],
        ['negative fraction', { value: -1.5e-7 }],
        ['unicode key', { value: '', key: 'zoë/💡' }],
        ['ties at one timestamp (an export watermark)', { value: '2024-03-01T12:00:00.000001Z', key: JSON.stringify(['c-1', 'c-10', 'c-2']) }],
      ];
      for (const [label, position] of precise) {
        it(`stores a cursor at full precision, across connections: ${label}`, async () => {
          const where = await location();
          const store = await where.open();
          await store.checkpoint('deals', position);
          await store.close();
          const back = await (await where.open()).cursor('deals');
          expect(back).toEqual(position);
          expect(typeof back?.value).toBe(typeof position.value);
        });
      }

      it('refuses a cursor that cannot be stored exactly', async () => {
        const store = await fresh();
        await expect(store.checkpoint('deals', { value: Number.NaN })).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR' });
      });

      it('keeps an export watermark apart from the sync of the same name', async () => {
        const store = await fresh();
        const runId = await store.startRun('export:deals');
        await store.checkpoint('export:deals', { value: '2024-03-01T00:00:00Z', key: '["a","b"]' });
        await store.checkpoint('deals', { value: 7 });
        await store.finishRun(runId, { status: 'succeeded', counts: { ...RUN_COUNTS_ZERO, read: 2, pushed: 2 } });
        expect(await store.cursor('export:deals')).toEqual({ value: '2024-03-01T00:00:00Z', key: '["a","b"]' });
        expect(await store.lastRun('export:deals')).toMatchObject({ runId, cursor: { value: '2024-03-01T00:00:00Z', key: '["a","b"]' } });
        expect(await store.lastRun('deals')).toBeUndefined();
        await store.reset('deals');
        expect(await store.cursor('export:deals')).toBeDefined();
      });

      it('persists ledger, cursor, runs and failures across connections', async () => {
        const where = await location();
        const first = await where.open();
        const runId = await first.startRun('deals');
        await ack(first, 'a');
        await first.recordFailure(failure('deals', 'b', { runId, origin: 'x.csv:2', errorBody: { e: 1 }, body: { id: 'b' }, sourceRecord: { id: 'b' } }));
        await first.checkpoint('deals', { value: '5' });
        await first.finishRun(runId, { status: 'partial', counts: { ...RUN_COUNTS_ZERO, read: 2, pushed: 1, created: 1, failed: 1 } });
        await first.close();

        const second = await where.open();
        expect((await second.ledgerEntry('deals', 'a'))?.fingerprint).toBe('fp-a');
        expect(await second.cursor('deals')).toEqual({ value: '5' });
        expect(await second.lastRun('deals')).toMatchObject({ runId, status: 'partial', cursor: { value: '5' } });
        expect((await second.failures())[0]).toMatchObject({ runId, remoteId: 'b', errorBody: { e: 1 } });
      });
    });

    port('runs', () => {
      it('starts, updates and finishes a run with counts, duration and the committed cursor', async () => {
        const clock = fakeClock();
        const store = await fresh({ now: clock.now });
        const runId = await store.startRun('deals');
        expect(runId).toMatch(/^[0-9a-f-]{36}$/);
        expect(await store.lastRun('deals')).toMatchObject({
          runId,
          sync: 'deals',
          status: 'running',
          startedAt: '2024-03-01T12:00:00.000Z',
          finishedAt: null,
          durationMs: null,
          error: null,
          cursor: null,
          counts: emptyCounts(),
        });
        await store.updateRun(runId, { ...RUN_COUNTS_ZERO, read: 10, pushed: 4 });
        expect((await store.lastRun('deals'))?.counts).toMatchObject({ read: 10, pushed: 4 });

        clock.advance(1234);
        await store.checkpoint('deals', { value: '2024-02-29T23:59:59.999999Z', key: '7' });
        const counts = { read: 10, pushed: 8, created: 5, updated: 3, unchanged: 1, failed: 1, deleted: 0, skipped: 0 };
        await store.finishRun(runId, { status: 'partial', counts, error: '1 record rejected' });
        expect(await store.lastRun('deals')).toEqual({
          runId,
          sync: 'deals',
          status: 'partial',
          startedAt: '2024-03-01T12:00:00.000Z',
          finishedAt: '2024-03-01T12:00:01.234Z',
          durationMs: 1234,
          error: '1 record rejected',
          cursor: { value: '2024-02-29T23:59:59.999999Z', key: '7' },
          counts,
        });
      });

      it('lists runs newest first, per sync and with a limit', async () => {
        const store = await fresh();
        const ids: { sync: string; runId: string }[] = [];
        for (const sync of ['a', 'b', 'a', 'a']) ids.push({ sync, runId: await store.startRun(sync) });
        expect((await store.runs()).map((r) => r.runId)).toEqual(ids.map((r) => r.runId).reverse());
        expect((await store.runs({ sync: 'a' })).map((r) => r.runId)).toEqual([ids[3]?.runId, ids[2]?.runId, ids[0]?.runId]);
        expect(await store.runs({ sync: 'a', limit: 1 })).toHaveLength(1);
        expect((await store.lastRun('b'))?.runId).toBe(ids[1]?.runId);
        expect(await store.lastRun('none')).toBeUndefined();
      });

      it('commits buffered writes when a run finishes, without moving the cursor', async () => {
        const store = await fresh();
        const runId = await store.startRun('deals');
        await store.checkpoint('deals', { value: 1 });
        await store.recordAcknowledged({ sync: 'deals', remoteId: 'a', fingerprint: 'f', recordId: 'r' });
        await store.finishRun(runId, { status: 'failed', counts: emptyCounts(), error: 'source lost' });
        expect((await store.fingerprints('deals', ['a'])).size).toBe(1);
        expect(await store.cursor('deals')).toEqual({ value: 1 });
        expect(await store.lastRun('deals')).toMatchObject({ status: 'failed', error: 'source lost', cursor: { value: 1 } });
      });

      it('lets another connection read a run while it is being written (status during a run)', async () => {
        const where = await location();
        const [writer, reader] = [await where.open(), await where.open()];
        const runId = await writer.startRun('deals');
        await writer.updateRun(runId, { ...RUN_COUNTS_ZERO, read: 3, pushed: 2, created: 2, skipped: 1 });
        expect(await reader.lastRun('deals')).toMatchObject({ runId, status: 'running', counts: { read: 3, skipped: 1 } });
      });

      it('refuses to update or finish a run it does not know', async () => {
        const store = await fresh();
        await expect(store.updateRun('nope', emptyCounts())).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR' });
        await expect(store.finishRun('nope', { status: 'succeeded', counts: emptyCounts() })).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR' });
      });
    });

    port('deadLetter', () => {
      it('replaces an older open failure of the same record and counts attempts', async () => {
        const store = await fresh();
        await store.recordFailure(failure('deals', 'a', { reason: 'first' }));
        await store.flush();
        await store.recordFailure(failure('deals', 'a', { reason: 'second' }));
        await store.recordFailure(failure('deals', null, { reason: 'no id 1' }));
        await store.recordFailure(failure('deals', null, { reason: 'no id 2' }));
        await store.flush();
        const all = await store.failures({ sync: 'deals' });
        expect(all.map((f) => f.reason)).toEqual(['no id 2', 'no id 1', 'second']);
        expect(all.find((f) => f.remoteId === 'a')?.attempts).toBe(2);
        expect((await store.ledgerEntry('deals', 'a'))?.attempts).toBe(2);
        expect(await store.failureCount('deals')).toBe(3);
        expect(await store.failureCount()).toBe(3);
        expect(await store.failures({ limit: 1 })).toHaveLength(1);
      });

      it('pages through a sync\'s entries by id, newest first, each once', async () => {
        const store = await fresh();
        for (let i = 0; i < 7; i++) await store.recordFailure(failure('deals', `r${i}`));
        await store.recordFailure(failure('other', 'x'));
        await store.flush();
        const seen: string[] = [];
        let beforeId: number | undefined;
        for (;;) {
          const page = await store.failures({ sync: 'deals', limit: 3, ...(beforeId === undefined ? {} : { beforeId }) });
          seen.push(...page.map((f) => f.remoteId ?? ''));
          if (page.length < 3) break;
          beforeId = page.at(-1)!.id;
        }
        expect(seen).toEqual(['r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
        expect(await store.failures({ beforeId: (await store.failures({ sync: 'deals' }))[5]!.id })).toHaveLength(1);
      });

      it('keeps one entry per record: by remote id, by origin and source record, or the entry a retry replaces', async () => {
        const store = await fresh();
        await store.recordFailure(failure('s', 'r1', { origin: 'a.csv:2', sourceRecord: { id: 'r1' } }));
        await store.recordFailure(failure('s', 'r1', { origin: 'a.csv:3', sourceRecord: { id: 'r1', moved: true } }));
        await store.recordFailure(failure('s', null, { origin: 'a.csv:4', sourceRecord: { x: 1 } }));
        await store.recordFailure(failure('s', null, { origin: 'a.csv:4', sourceRecord: { x: 1 }, reason: 'still bad' }));
        // The same origin (a page URL, say) holding another record: an entry of its own.
        await store.recordFailure(failure('s', null, { origin: 'a.csv:4', sourceRecord: { x: 2 } }));
        await store.flush();
        const entries = await store.failures({ sync: 's' });
        expect(entries.map((f) => [f.remoteId, f.origin, f.attempts, f.reason])).toEqual([
          [null, 'a.csv:4', 1, 'no'],
          [null, 'a.csv:4', 2, 'still bad'],
          ['r1', 'a.csv:3', 2, 'no'],
        ]);
        // `failures retry` of the second entry, whose id now maps.
        await store.recordFailure(failure('s', 'now-mapped', { origin: 'dead-letter', sourceRecord: { x: 1 }, replaces: entries[1]!.id }));
        await store.flush();
        expect((await store.failures({ sync: 's' })).map((f) => [f.remoteId, f.attempts])).toEqual([
          ['now-mapped', 3],
          [null, 1],
          ['r1', 2],
        ]);
      });

      it('removes a failure after a successful retry, and an acknowledgement resolves it too', async () => {
        const store = await fresh();
        await store.recordFailure(failure('deals', 'a'));
        await store.recordFailure(failure('deals', 'b'));
        await store.flush();
        const a = (await store.failures()).find((f) => f.remoteId === 'a');
        await store.removeFailure(a?.id ?? -1);
        expect((await store.failures()).map((f) => f.remoteId)).toEqual(['b']);
        await ack(store, 'b', 'fixed');
        expect(await store.failureCount('deals')).toBe(0);
        expect(await store.ledgerEntry('deals', 'b')).toMatchObject({ status: 'pushed', attempts: 0, lastError: null, fingerprint: 'fixed' });
      });

      it('an acknowledgement resolves a failure written in the same commit, and only its own record\'s', async () => {
        const store = await fresh();
        await ack(store, 'x');
        await store.recordFailure(failure('deals', 'a'));
        await store.recordFailure(failure('deals', 'b'));
        await store.recordFailure(failure('other', 'a'));
        await ack(store, 'a');
        await ack(store, 'y');
        await store.flush();
        expect((await store.failures()).map((f) => [f.sync, f.remoteId]).sort()).toEqual([
          ['deals', 'b'],
          ['other', 'a'],
        ]);
        // A later commit that starts with acknowledgements still finds the open ones.
        await ack(store, 'b');
        await ack(store, 'a', 'fp-a', 'other');
        await store.flush();
        expect(await store.failures()).toEqual([]);
      });

      it('refuses a failure that names an unknown run at once, without poisoning the buffer', async () => {
        const store = await fresh();
        await expect(store.recordFailure(failure('deals', 'a', { runId: 'no-such-run' }))).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR' });
        await ack(store, 'b');
        await store.flush();
        expect((await store.ledgerEntry('deals', 'b'))?.status).toBe('pushed');
      });

      it('purges failures per sync or all', async () => {
        const store = await fresh();
        for (const sync of ['a', 'a', 'b']) await store.recordFailure(failure(sync, null, { kind: 'invalid', status: null }));
        expect(await store.purgeFailures('a')).toBe(2);
        expect(await store.failureCount()).toBe(1);
        expect(await store.purgeFailures()).toBe(1);
      });
    });

    port('locks', () => {
      it('lets one owner hold a sync at a time, independently per sync', async () => {
        const store = await fresh();
        expect(await store.acquireLock('deals', 'p1', 60_000)).toBe(true);
        expect(await store.acquireLock('deals', 'p2', 60_000)).toBe(false);
        expect(await store.acquireLock('deals', 'p1', 60_000)).toBe(true); // re-entrant for the holder
        expect(await store.acquireLock('notes', 'p2', 60_000)).toBe(true);
      });

      it('holds across connections', async () => {
        const where = await location();
        const [a, b] = [await where.open(), await where.open()];
        expect(await a.acquireLock('deals', 'p1', 60_000)).toBe(true);
        expect(await b.acquireLock('deals', 'p2', 60_000)).toBe(false);
        expect((await b.lockHolder('deals'))?.owner).toBe('p1');
      });

      it('hands the lock over after release, and ignores a release by a non-holder', async () => {
        const store = await fresh();
        await store.acquireLock('deals', 'p1', 60_000);
        await store.releaseLock('deals', 'p2');
        expect(await store.acquireLock('deals', 'p2', 60_000)).toBe(false);
        await store.releaseLock('deals', 'p1');
        expect(await store.lockHolder('deals')).toBeUndefined();
        expect(await store.acquireLock('deals', 'p2', 60_000)).toBe(true);
      });

      it('lets an expired lease be taken over, and renewing keeps it alive', async () => {
        const clock = fakeClock();
        const store = await fresh({ now: clock.now });
        expect(await store.acquireLock('deals', 'p1', 1000)).toBe(true);
        expect(await store.lockHolder('deals')).toEqual({ owner: 'p1', acquiredAt: '2024-03-01T12:00:00.000Z', expiresMs: T0 + 1000 });
        clock.advance(900);
        expect(await store.renewLock('deals', 'p1', 1000)).toBe(true); // now expires at +1900
        expect((await store.lockHolder('deals'))?.expiresMs).toBe(T0 + 1900);
        clock.advance(900);
        expect(await store.acquireLock('deals', 'p2', 1000)).toBe(false);
        clock.advance(101);
        expect(await store.acquireLock('deals', 'p2', 1000)).toBe(true);
        expect(await store.renewLock('deals', 'p1', 1000)).toBe(false); // p1 lost it
        expect(await store.renewLock('deals', 'p2', 1000)).toBe(true);
        expect(await store.renewLock('other', 'p2', 1000)).toBe(false);
      });

      it('takes a live lease over only from the holder the caller names as dead', async () => {
        const store = await fresh();
        await store.acquireLock('deals', 'dead', 60_000);
        const orphan = await store.startRun('deals');
        expect(await store.acquireLock('deals', 'me', 60_000, { takeOverFrom: 'someone-else' })).toBe(false);
        expect(await store.acquireLock('deals', 'me', 60_000, { takeOverFrom: 'dead' })).toBe(true);
        expect((await store.lockHolder('deals'))?.owner).toBe('me');
        expect((await store.runs({ sync: 'deals' }))[0]).toMatchObject({ runId: orphan, status: 'aborted' });
        // A stale "dead" name cannot steal the lease from its new holder.
        expect(await store.acquireLock('deals', 'third', 60_000, { takeOverFrom: 'dead' })).toBe(false);
      });

      it('marks the runs of a dead holder aborted when its lease is taken over', async () => {
        const clock = fakeClock();
        const store = await fresh({ now: clock.now });
        await store.acquireLock('deals', 'dead', 1000);
        const orphan = await store.startRun('deals');
        clock.advance(5000);
        expect(await store.acquireLock('deals', 'alive', 1000)).toBe(true);
        expect((await store.runs({ sync: 'deals' }))[0]).toMatchObject({ runId: orphan, status: 'aborted', durationMs: 5000 });
        expect((await store.lastRun('deals'))?.error).toMatch(/stopped without finishing/);
      });

      it('rejects a non-positive lease', async () => {
        const store = await fresh();
        await expect(store.acquireLock('deals', 'p1', 0)).rejects.toMatchObject({ code: 'FERRY_STATE_ERROR' });
      });
    });

    port('serviceLimits', () => {
      it('keeps the last limits learnt per service across connections, and replaces them', async () => {
        const at = await location();
        const store = await at.open();
        expect(await store.serviceLimits()).toEqual([]);
        const slow = { service: 'https://api.example.com', concurrency: 24, concurrencyReason: 'latency', rateReason: 'unlimited', learntAt: '2026-12-01T20:00:00.000Z' };
        await store.recordServiceLimits(slow);
        await store.recordServiceLimits({ service: 'embedded', concurrency: 40, concurrencyReason: 'saturated', rateReason: 'unlimited', learntAt: '2026-12-01T20:01:00.000Z' });
        await store.recordServiceLimits({ ...slow, concurrency: 30, rate: 97.5, rateReason: 'throttled' });
        const again = await at.open();
        expect(await again.serviceLimits()).toEqual([
          { service: 'embedded', concurrency: 40, concurrencyReason: 'saturated', rateReason: 'unlimited', learntAt: '2026-12-01T20:01:00.000Z' },
          { ...slow, concurrency: 30, rate: 97.5, rateReason: 'throttled' },
        ]);
      });
    });

    port('exportLayouts', () => {
      it('keeps an export\'s layout across connections, replaces it, and knows none of an export never recorded', async () => {
        const at = await location();
        const first = await at.open();
        expect(await first.exportLayout('export:deals')).toBeUndefined();
        await first.recordExportLayout('export:deals', { naming: 'snake_case', metadata: true });
        await first.recordExportLayout('export:notes', { naming: 'api', metadata: false });
        await first.recordExportLayout('export:deals', { naming: 'api', metadata: true });
        const second = await at.open();
        expect(await second.exportLayout('export:deals')).toEqual({ naming: 'api', metadata: true });
        expect(await second.exportLayout('export:notes')).toEqual({ naming: 'api', metadata: false });
        expect(await second.exportLayout('export:other')).toBeUndefined();
      });
    });

    port('exportFingerprints', () => {
      const lookup = async (store: StateStore, keys: string[]) => Object.fromEntries(await store.exportFingerprints('export:deals', keys));

      it('shows a staged fingerprint only once its load commits, to every connection', async () => {
        const at = await location();
        const first = await at.open();
        await first.stageExportFingerprints('export:deals', 'load-1', [['a', 'fa'], ['b', 'fb']]);
        expect(await lookup(first, ['a', 'b'])).toEqual({});
        expect(await first.countExportFingerprints('export:deals')).toBe(0);
        await first.commitExportFingerprints('export:deals', 'load-1');
        const second = await at.open();
        expect(await lookup(second, ['a', 'b', 'c'])).toEqual({ a: 'fa', b: 'fb' });
        expect(await second.countExportFingerprints('export:deals')).toBe(2);
        expect(await second.exportFingerprints('export:other', ['a'])).toEqual(new Map());
      });

      it('keeps the committed fingerprint while a later load is staged, and drops what a dead load staged', async () => {
        const store = await fresh();
        await store.stageExportFingerprints('export:deals', 'load-1', [['a', 'fa'], ['b', 'fb']]);
        await store.commitExportFingerprints('export:deals', 'load-1');
        // load-2 was killed before its commit: a's change and c's insert were staged only.
        await store.stageExportFingerprints('export:deals', 'load-2', [['a', 'fa2'], ['c', 'fc']]);
        expect(await lookup(store, ['a', 'c'])).toEqual({ a: 'fa' });
        await store.stageExportFingerprints('export:deals', 'load-3', [['b', 'fb3']]);
        await store.commitExportFingerprints('export:deals', 'load-3');
        expect(await lookup(store, ['a', 'b', 'c'])).toEqual({ a: 'fa', b: 'fb3' });
        await store.commitExportFingerprints('export:deals', 'load-2');
        expect(await lookup(store, ['a', 'b', 'c'])).toEqual({ a: 'fa', b: 'fb3' });
      });

      it('stages the deletion of fingerprinted keys a listing lacks, and a null entry deletes', async () => {
        const store = await fresh();
        const keys = Array.from({ length: 25 }, (_, i) => `k${i}`);
        await store.stageExportFingerprints('export:deals', 'load-1', keys.map((k) => [k, `f-${k}`] as const));
        await store.stageExportFingerprints('export:notes', 'load-1', [['k1', 'x']]);
        await store.commitExportFingerprints('export:deals', 'load-1');
        await store.commitExportFingerprints('export:notes', 'load-1');
        const live = keys.filter((k) => k !== 'k3' && k !== 'k7');
        expect(await store.stageUnlistedExportKeys('export:deals', 'load-2', [...live, live[0]!, 'new'])).toBe(2);
        await store.stageExportFingerprints('export:deals', 'load-2', [['k4', null]]);
        expect(await store.countExportFingerprints('export:deals')).toBe(25);
        await store.commitExportFingerprints('export:deals', 'load-2');
        expect(await store.countExportFingerprints('export:deals')).toBe(22);
        expect(await lookup(store, ['k3', 'k4', 'k7', 'k8'])).toEqual({ k8: 'f-k8' });
        expect(await store.countExportFingerprints('export:notes')).toBe(1);
      });

      it('forgets an export\'s fingerprints with its ledger on reset', async () => {
        const store = await fresh();
        await store.stageExportFingerprints('export:deals', 'load-1', [['a', 'fa']]);
        await store.commitExportFingerprints('export:deals', 'load-1');
        await store.reset('export:deals', { cursor: true });
        expect(await store.countExportFingerprints('export:deals')).toBe(1);
        await store.reset('export:deals');
        expect(await store.countExportFingerprints('export:deals')).toBe(0);
      });
    });

    port('admin', () => {
      const seed = async (store: StateStore, sync: string) => {
        await store.recordAcknowledged({ sync, remoteId: 'a', fingerprint: 'f', recordId: 'r' });
        await store.recordFailure(failure(sync, 'b'));
        await store.checkpoint(sync, { value: 9 });
      };

      it('lists every sync that has any state', async () => {
        const store = await fresh();
        await store.recordAcknowledged({ sync: 'ledger-only', remoteId: 'a', fingerprint: 'f', recordId: 'r' });
        await store.checkpoint('cursor-only', { value: 1 });
        await store.startRun('run-only');
        await store.recordFailure(failure('failure-only', null, { kind: 'invalid', status: null }));
        expect(await store.syncs()).toEqual(['cursor-only', 'failure-only', 'ledger-only', 'run-only']);
      });

      it('lists every sync the ledger holds, however many records each has, and none for an empty state', async () => {
        const store = await fresh();
        expect(await store.syncs()).toEqual([]);
        for (const sync of ['b-deals', 'a-calls', 'é-notes', 'b-deals-2']) {
          for (let i = 0; i < 5; i++) await store.recordAcknowledged({ sync, remoteId: `r${i}`, fingerprint: 'f', recordId: `x${i}` });
        }
        expect(await store.syncs()).toEqual(['a-calls', 'b-deals', 'b-deals-2', 'é-notes']);
      });

      it('resets everything of one sync by default, and keeps run history', async () => {
        const store = await fresh();
        await seed(store, 'deals');
        await seed(store, 'notes');
        await store.startRun('deals');
        await store.reset('deals');
        expect(await store.cursor('deals')).toBeUndefined();
        expect(await store.ledgerEntry('deals', 'a')).toBeUndefined();
        expect(await store.ledgerEntry('deals', 'b')).toBeUndefined();
        expect(await store.failureCount('deals')).toBe(0);
        expect(await store.runs({ sync: 'deals' })).toHaveLength(1);
        expect(await store.cursor('notes')).toEqual({ value: 9 });
        expect(await store.countLive('notes')).toBe(1);
        expect(await store.failureCount('notes')).toBe(1);
      });

      it.each([
        [{ cursor: true }, { cursor: false, ledger: true, failures: true }],
        [{ ledger: true }, { cursor: true, ledger: false, failures: true }],
        [{ failures: true }, { cursor: true, ledger: true, failures: false }],
        [{ cursor: true, failures: true }, { cursor: false, ledger: true, failures: false }],
      ])('resets only what is asked: %o', async (what, kept) => {
        const store = await fresh();
        await seed(store, 'deals');
        await store.reset('deals', what);
        expect((await store.cursor('deals')) !== undefined).toBe(kept.cursor);
        expect((await store.ledgerEntry('deals', 'a')) !== undefined).toBe(kept.ledger);
        expect((await store.failureCount('deals')) === 1).toBe(kept.failures);
      });

      it('also resets writes that were still buffered', async () => {
        const store = await fresh();
        await store.recordAcknowledged({ sync: 'deals', remoteId: 'a', fingerprint: 'f', recordId: 'r' });
        await store.reset('deals');
        await store.flush();
        expect(await store.ledgerEntry('deals', 'a')).toBeUndefined();
      });
    });
  });
}
