/**
 * The hand-written client ferry is measured against: stream the deals CSV
 * with csv-parse, build the same row bodies byte for byte, and keep
 * `concurrency` POSTs in flight on an undici Pool. No state, no retries.
 * Prints one JSON line.
 *
 * Usage: tsx bench/push/baseline.ts <baseUrl> <csvPath> <concurrency>
 */
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { Pool } from 'undici';

const [baseUrl, csvPath, concurrencyText] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
const pool = new Pool(baseUrl!, { connections: concurrency, pipelining: 1 });
const headers = { accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer bench-key', 'user-agent': 'baseline' };

async function getJson<T>(path: string): Promise<T> {
  const res = await pool.request({ path, method: 'GET', headers });
  return (await res.body.json()) as T;
}
const { sources } = await getJson<{ sources: { id: string; name: string }[] }>('/v1/sources?name=crm');
const sourceId = sources.find((s) => s.name === 'crm')!.id;
const { objectTypes } = await getJson<{ objectTypes: { id: string; name: string }[] }>(`/v1/object-types?sourceId=${sourceId}`);
const objectTypeId = objectTypes.find((t) => t.name === 'deal')!.id;

type Deal = Record<'opportunity_id' | 'sales_agent' | 'product' | 'account' | 'deal_stage' | 'close_date' | 'close_value', string>;
function body(d: Deal): string {
  const fields: Record<string, { value: unknown; fieldType: string }> = {};
  const put = (name: string, value: unknown, fieldType: string) => {
    if (value !== '') fields[name] = { value, fieldType };
  };
  put('stage', d.deal_stage, 'string');
  put('agent', d.sales_agent, 'string');
  put('product', d.product, 'string');
  put('value', d.close_value === '' ? '' : Number(d.close_value), 'int');
  put('closed', d.close_date, 'date');
  const name = d.account ? `${d.account} – ${d.product}` : d.product;
  return JSON.stringify({ id: d.opportunity_id, sourceId, public: true, objectTypeId, name, fields });
}

const started = performance.now();
let sent = 0;
const inFlight = new Set<Promise<void>>();
for await (const deal of createReadStream(csvPath!).pipe(parse({ columns: true }))) {
  const bytes = Buffer.from(body(deal as Deal));
  const request = pool
    .request({ path: '/v1/rows', method: 'POST', headers: { ...headers, 'content-length': String(bytes.length) }, body: bytes })
    .then(async (res) => {
      await res.body.text();
      if (res.statusCode !== 201) throw new Error(`HTTP ${res.statusCode}`);
    });
  const tracked: Promise<void> = request.finally(() => inFlight.delete(tracked));
  inFlight.add(tracked);
  sent++;
  if (inFlight.size >= concurrency) await Promise.race(inFlight);
}
await Promise.all(inFlight);
const seconds = (performance.now() - started) / 1000;
await pool.close();
console.log(JSON.stringify({ seconds, records: sent }));
