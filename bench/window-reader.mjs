// The minimal list reader ferry's sliced export is measured beside: an undici
// Pool, one cursor chain per time window, the windows cut evenly over a time
// range it is told in advance (no first page, no probes, no splits), each
// page's JSON parsed and its items counted. No validation, no destination, no
// ferry code. What a reader that knew the data's spread could do: the ceiling
// ferry's plan is compared with.
// Plain JavaScript: `node`, no build step, no tsx.
//
// Usage: node bench/window-reader.mjs <baseUrl> <fromIso> <toIso> [chains=8]
// Lists /v1/conversations with startedAfter/startedBefore; prints
// {"items": n, "ms": first request to last answer} on one line.
import { performance } from 'node:perf_hooks';
import { URLSearchParams } from 'node:url';
import { Pool } from 'undici';

const [baseUrl, fromIso, toIso, chainsText = '8'] = process.argv.slice(2);
const chains = Number(chainsText);
const pool = new Pool(baseUrl, { connections: chains });
const headers = { authorization: 'Bearer sk_live_bench', accept: 'application/json' };
const from = Date.parse(fromIso);
const to = Date.parse(toIso);

// Windows [lo, hi): asked as after = lo − 1 ms, before = hi, kept lo ≤ t < hi, so an item on an edge is read once either way the service takes its bounds.
async function readWindow(lo, hi) {
  let items = 0;
  let cursor;
  for (;;) {
    const query = new URLSearchParams({ limit: '50', startedAfter: new Date(lo - 1).toISOString(), startedBefore: new Date(hi).toISOString() });
    if (cursor) query.set('cursor', cursor);
    const response = await pool.request({ path: `/v1/conversations?${query}`, method: 'GET', headers });
    const page = await response.body.json();
    for (const item of page.conversations) {
      const time = Date.parse(item.startTime);
      if (time >= lo && time < hi) items += 1;
    }
    if (!page.pagination.hasMore) return items;
    cursor = page.pagination.nextCursor;
  }
}

const started = performance.now();
const span = to - from + 1;
const counts = await Promise.all(
  Array.from({ length: chains }, (_, i) => readWindow(from + Math.floor((span * i) / chains), from + Math.floor((span * (i + 1)) / chains))),
);
const ms = performance.now() - started;
await pool.close();
process.stdout.write(`${JSON.stringify({ items: counts.reduce((a, b) => a + b, 0), ms: Math.round(ms) })}\n`);
