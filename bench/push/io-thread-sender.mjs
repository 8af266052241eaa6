// The sending half of io-thread-client.ts, run in a worker thread of its own:
// it keeps `concurrency` POSTs in flight from the bodies the main thread posts
// (packed, one string per batch, joined by \u0000), and posts back how many were
// answered. Its event loop does nothing else, so an answer is read and the next
// request written as soon as the thread gets a CPU. Plain JavaScript, so the
// worker loads without tsx. workerData: { baseUrl, concurrency, transport: 'undici' | 'http' }.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

const { baseUrl, concurrency, transport } = workerData;
const headers = { accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer bench-key' };
const url = new URL(baseUrl);
const pool = new Pool(baseUrl, { connections: concurrency, pipelining: 1 });
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, scheduling: 'lifo' });

/** One POST of `body`; resolves once its answer has been read, rejects on anything but 201. */
function send(body) {
  if (transport === 'undici') {
    return pool.request({ path: '/v1/rows', method: 'POST', headers, body }).then(async (res) => {
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`HTTP ${res.statusCode}`);
    });
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: '/v1/rows', method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let queue = [];
let head = 0;
let inFlight = 0;
let answered = 0;
let ended = false;
let reportDue = false;

function report() {
  reportDue = false;
  if (answered > 0) parentPort.postMessage(answered);
  answered = 0;
}

function pump() {
  while (inFlight < concurrency && head < queue.length) {
    inFlight++;
    send(queue[head++]).then(() => {
      inFlight--;
      answered++;
      if (!reportDue) {
        reportDue = true;
        setImmediate(report);
      }
      pump();
    });
  }
  if (head > 4096) {
    queue = queue.slice(head);
    head = 0;
  }
  if (ended && inFlight === 0 && head >= queue.length) {
    report();
    agent.destroy();
    void pool.close().then(() => parentPort.close());
  }
}

parentPort.on('message', (packed) => {
  if (packed === null) ended = true;
  else for (const body of packed.split('\u0000')) queue.push(body);
  pump();
});
