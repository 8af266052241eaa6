/**
 * The http source against a local API that limits its rate for real (a token
 * bucket on the wall clock): its requests are on the adaptive request
 * control, so the API's 429s with Retry-After, or its RateLimit headers,
 * set the pace; the read backs off and ends with every record once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpSource } from '../../../connectors/sources/http/index.js';
import { items, readAll, startApi, type TestApi } from './http-fixture.js';

let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A token bucket of `perSecond` (holding `burst`), on real time. */
function bucket(perSecond: number, burst: number): () => boolean {
  let tokens = burst;
  let at = performance.now();
  return () => {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - at) * perSecond) / 1000);
    at = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

const ALL = items(90);
const PAGE = 1;

/** One record per page, so that every record is one request. */
function pageOf(url: URL): unknown[] {
  const page = Number(url.searchParams.get('page'));
  return ALL.slice((page - 1) * PAGE, page * PAGE);
}

const options = (baseUrl: string) => ({ baseUrl, path: '/items', primaryKey: 'id', pagination: { type: 'page' as const, size: PAGE, sizeParam: 'size' } });

describe('http source on an API that limits its rate', () => {
  it('backs off on 429 with Retry-After and reads every record exactly once', async () => {
    const take = bucket(40, 5);
    let throttled = 0;
    /** When each request came, and whether it was refused. */
    const seen: { at: number; refused: boolean }[] = [];
    api = await startApi(({ url }) => {
      const refused = !take();
      seen.push({ at: performance.now(), refused });
      if (refused) {
        throttled++;
        return { status: 429, headers: { 'retry-after': '1' }, json: { error: 'slow down' } };
      }
      return { json: pageOf(url) };
    });
    const records = await readAll(createHttpSource(), options(api.url));
    expect(records.map((r) => (r.data as { id: number }).id)).toEqual(ALL.map((item) => item.id));
    expect(throttled).toBeGreaterThan(0);
    expect(api.requests.length - throttled).toBe(ALL.length + 1);
    // Every Retry-After is honoured: nothing reaches the API for a second after a 429.
    // (How few 429s it takes depends on the machine's timing: a figure in docs/performance.md, not of this test.
    // The rule that learns the bucket from the 429s that halt the reader is tested on a virtual clock, rate-limiter.test.ts.)
    seen.forEach((request, i) => {
      const next = seen[i + 1];
      if (request.refused && next) expect(next.at - request.at).toBeGreaterThanOrEqual(990);
    });
  }, 60_000);

  it('keeps to the rate RateLimit headers announce, with almost no 429', async () => {
    const take = bucket(30, 3);
    let throttled = 0;
    api = await startApi(({ url }) => {
      const headers = { 'ratelimit-policy': '30;w=1', 'x-ratelimit-limit': '30' };
      if (!take()) {
        throttled++;
        return { status: 429, headers: { ...headers, 'retry-after': '1' }, json: { error: 'slow down' } };
      }
      return { json: pageOf(url), headers };
    });
    const records = await readAll(createHttpSource(), options(api.url));
    expect(records).toHaveLength(ALL.length);
    expect(new Set(records.map((r) => (r.data as { id: number }).id)).size).toBe(ALL.length);
    expect(throttled).toBeLessThanOrEqual(2);
  }, 30_000);

  it('never goes above maxRequestsPerSecond, whatever the API allows', async () => {
    api = await startApi(({ url }) => ({ json: pageOf(url) }));
    const sentAt: number[] = [];
    const source = createHttpSource({
      fetch: (input, init) => {
        sentAt.push(performance.now());
        return fetch(input, init);
      },
    });
    const records = await readAll(source, { ...options(api.url), maxRequestsPerSecond: 100 });
    expect(records).toHaveLength(ALL.length);
    // Any span holds at most a couple of requests more than the rate allows (timers fire late, never early by much).
    const spanMs = sentAt.at(-1)! - sentAt[0]!;
    expect(sentAt.length - 1).toBeLessThanOrEqual(2 + (100 * spanMs) / 1000);
  }, 30_000);
});
