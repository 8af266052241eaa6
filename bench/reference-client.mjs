// The minimal reference client ferry's zero-latency row is measured against:
// csv-parse and an undici Pool, 16 requests in flight, each deals CSV row sent
// as the row body ferry sends for it, byte for byte (keys sorted at every
// level, as ferry's canonical JSON is). No state, no retries, no ferry code.
// Plain JavaScript: `node`, no build step, no tsx.
//
// Usage: node bench/reference-client.mjs <baseUrl> <csvPath> [concurrency=16]
// (after a ferry run of the deals sync made the `crm` source and its `deal` object type).
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { Pool } from 'undici';

const [baseUrl, csvPath, concurrencyText = '16'] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
const pool = new Pool(baseUrl, { connections: concurrency });
const headers = { 'content-type': 'application/json', authorization: 'Bearer bench-key' };

async function getJson(path) {
  const res = await pool.request({ path, method: 'GET', headers });
  return res.body.json();
}
const sourceId = (await getJson('/v1/sources?name=crm')).sources.find((s) => s.name === 'crm').id;
const objectTypeId = (await getJson(`/v1/object-types?sourceId=${sourceId}`)).objectTypes.find((t) => t.name === 'deal').id;

function body(d) {
  const fields = {};
  const put = (name, value, fieldType) => {
    if (value !== '') fields[name] = { fieldType, value };
  };
  put('agent', d.sales_agent, 'string');
  put('closed', d.close_date, 'date');
  put('product', d.product, 'string');
  put('stage', d.deal_stage, 'string');
  put('value', d.close_value === '' ? '' : Number(d.close_value), 'int');
  const name = d.account ? `${d.account} – ${d.product}` : d.product;
  return JSON.stringify({ fields, id: d.opportunity_id, name, objectTypeId, public: true, sourceId });
}

let inFlight = 0;
let sent = 0;
let failed = 0;
let freed;
const settle = (res) => {
  if (res.statusCode !== 201) failed++;
  return res.body.dump();
};
const done = () => {
  inFlight--;
  freed?.();
};
for await (const deal of createReadStream(csvPath).pipe(parse({ columns: true }))) {
  while (inFlight >= concurrency) await new Promise((resolve) => (freed = resolve));
  inFlight++;
  sent++;
  pool.request({ path: '/v1/rows', method: 'POST', headers, body: body(deal) }).then(settle, () => failed++).finally(done);
}
while (inFlight > 0) await new Promise((resolve) => (freed = resolve));
await pool.close();
console.log(JSON.stringify({ sent, failed }));
