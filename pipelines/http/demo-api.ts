/**
 * A tiny local REST API for the http-source example, so it runs offline.
 * It serves the CRM data set (shared/datasets/crm-sales-opportunities) the
 * way SaaS APIs usually do:
 *
 *   GET /v1/agents?page=1&per_page=10          page numbers; { data, meta }
 *   GET /v1/agents/{id}/deals?cursor=&limit=   cursor in the body; { deals, next_cursor, has_more }
 *       &updated_since=<ISO date>              inclusive filter (>=), like most APIs
 *
 * Every request needs `Authorization: Bearer <token>` (DEMO_API_TOKEN,
 * default `demo-token`). Start it with `npx tsx pipelines/http/demo-api.ts`
 * (PORT, default 4010; DEMO_API_AGENTS=N serves only the first N agents);
 * tests import startDemoApi().
 */
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const DATASET = fileURLToPath(new URL('../../../shared/datasets/crm-sales-opportunities/', import.meta.url));

export interface Agent {
  id: string;
  name: string;
  manager: string;
  regional_office: string;
}

export interface Deal {
  id: string;
  agent_id: string;
  product: string;
  account: string | null;
  stage: string;
  engaged_on: string | null;
  closed_on: string | null;
  value: number | null;
  /** When the deal last changed: its close date, else its engage date. */
  updated_at: string;
}

/** The data sets have no quoted fields, so a plain split is exact. */
function readCsv(file: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(`${DATASET}${file}`, 'utf8').split(/\r?\n/).filter((line) => line !== '');
  const columns = header!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [columns[i]!, value])));
}

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

export function loadDemoData(): { agents: Agent[]; deals: Map<string, Deal[]> } {
  const agents = readCsv('sales_teams.csv').map((row) => ({
    id: slug(row.sales_agent!),
    name: row.sales_agent!,
    manager: row.manager!,
    regional_office: row.regional_office!,
  }));
  const deals = new Map<string, Deal[]>(agents.map((agent) => [agent.id, []]));
  for (const row of readCsv('sales_pipeline.csv')) {
    const agentId = slug(row.sales_agent!);
    const updated = row.close_date || row.engage_date || '2016-10-01';
    deals.get(agentId)?.push({
      id: row.opportunity_id!,
      agent_id: agentId,
      product: row.product!,
      account: row.account || null,
      stage: row.deal_stage!,
      engaged_on: row.engage_date || null,
      closed_on: row.close_date || null,
      value: row.close_value ? Number(row.close_value) : null,
      updated_at: `${updated}T00:00:00Z`,
    });
  }
  for (const list of deals.values()) list.sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id.localeCompare(b.id));
  return { agents, deals };
}

export interface DemoApi {
  url: string;
  /** Requests served so far. */
  requests: number;
  close(): Promise<void>;
}

export interface DemoApiOptions {
  /** @default 0 (an ephemeral port) */
  port?: number;
  /** @default DEMO_API_TOKEN or `demo-token` */
  token?: string;
  /** Serve only the first N agents (and their deals). @default all 35 */
  agents?: number;
}

export async function startDemoApi(options: DemoApiOptions = {}): Promise<DemoApi> {
  const token = options.token ?? process.env.DEMO_API_TOKEN ?? 'demo-token';
  const data = loadDemoData();
  const agents = data.agents.slice(0, options.agents ?? data.agents.length);
  const deals = new Map(agents.map((agent) => [agent.id, data.deals.get(agent.id) ?? []]));
  const state = { requests: 0 };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    state.requests += 1;
    const url = new URL(req.url ?? '/', 'http://demo');
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'missing or wrong bearer token' });
    const number = (name: string, fallback: number) => {
      const value = Number(url.searchParams.get(name) ?? fallback);
      return Number.isInteger(value) && value >= 0 ? value : fallback;
    };
    if (url.pathname === '/v1/agents') {
      const page = Math.max(1, number('page', 1));
      const perPage = Math.min(100, Math.max(1, number('per_page', 10)));
      return send(res, 200, { data: agents.slice((page - 1) * perPage, page * perPage), meta: { page, per_page: perPage, total: agents.length } });
    }
    const match = /^\/v1\/agents\/([^/]+)\/deals$/.exec(url.pathname);
    if (match) {
      const list = deals.get(decodeURIComponent(match[1]!));
      if (!list) return send(res, 404, { error: `no agent ${match[1]}` });
      const since = url.searchParams.get('updated_since');
      const filtered = since ? list.filter((deal) => deal.updated_at >= since) : list;
      const start = number('cursor', 0);
      const limit = Math.min(500, Math.max(1, number('limit', 100)));
      const end = start + limit;
      return send(res, 200, { deals: filtered.slice(start, end), next_cursor: end < filtered.length ? String(end) : null, has_more: end < filtered.length });
    }
    return send(res, 404, { error: `no route ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const agents = process.env.DEMO_API_AGENTS === undefined ? undefined : Number(process.env.DEMO_API_AGENTS);
  const api = await startDemoApi({ port: Number(process.env.PORT ?? 4010), ...(agents !== undefined ? { agents } : {}) });
  process.stdout.write(`demo API listening on ${api.url} (bearer token: ${process.env.DEMO_API_TOKEN ?? 'demo-token'}); Ctrl-C to stop\n`);
}
