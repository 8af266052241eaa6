/**
 * The console's JSON API under /api/ (docs/console.md lists every route).
 * Reads go to the state store, the config and the service's read side;
 * actions call the cores `ferry failures`, `ferry state reset` and `ferry
 * run` use. Every answer passes the one redactor (http-io.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ServiceClient } from '../api/client.js';
import type { LoadedConfig } from '../config/index.js';
import { formatConfigIssues } from '../config/index.js';
import { previewSync } from '../pipeline/preview.js';
import { runChecks } from '../project/check.js';
import { resetSync } from '../project/sync-state.js';
import { stateSyncNames } from '../project/sync-names.js';
import { loadProject } from '../runtime/project.js';
import { FerryError, isFerryError } from '../sdk/errors.js';
import { ferryPackageVersion } from '../sdk/ferry-package.js';
import { messageOf } from '../sdk/guards.js';
import { redactUrl } from '../sdk/redact.js';
import type { StateStore } from '../state/index.js';
import { describeResources, getItem, listPage } from './data.js';
import { readJson, sendError, sendJson, SECURITY_HEADERS } from './http-io.js';
import type { Launcher } from './launcher.js';
import type { Guard } from './security.js';
import { failureById, failurePage, liveCounts, overview, runById, stateView } from './views.js';

export interface ApiContext {
  configFile: string;
  /** The config as the console started with it (state store and service come from it). */
  config: LoadedConfig;
  store: StateStore;
  service: ServiceClient;
  serviceLabel: string;
  launcher: Launcher;
  guard: Guard;
  logger: Logger;
  /** Polling period of the live run stream. */
  liveMs: number;
}

type Handler = (ctx: ApiContext, req: IncomingMessage, res: ServerResponse, params: string[], url: URL) => Promise<void>;

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  handler: Handler;
}

const routes: Route[] = [];
const route = (method: Route['method'], pattern: RegExp, handler: Handler) => routes.push({ method, pattern, handler });

/** The config as it is now (a fixed mapping shows at once), or the one the console started with if it no longer loads. */
async function currentConfig(ctx: ApiContext): Promise<LoadedConfig> {
  try {
    return await loadProject(ctx.configFile);
  } catch {
    return ctx.config;
  }
}

function intParam(url: URL, name: string, fallback: number, max: number): number {
  const text = url.searchParams.get(name);
  if (text === null || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new FerryError('FERRY_USAGE', `${name} must be a whole number from 1 to ${max}, not "${text}"`);
  return n;
}

async function knownSync(ctx: ApiContext, config: LoadedConfig, sync: string): Promise<string> {
  await stateSyncNames(config, ctx.store, [sync]);
  return sync;
}

route('GET', /^\/api\/session$/, async (ctx, _req, res) => {
  sendJson(res, 200, {
    version: ferryPackageVersion(),
    project: ctx.config.file,
    stateUrl: redactUrl(ctx.config.state.url),
    service: ctx.serviceLabel,
    csrfHeader: 'X-Ferry-Csrf',
    csrfToken: ctx.guard.csrfToken,
    notify: { webhooks: ctx.config.notify.webhooks.map((w) => ({ origin: new URL(w.url).origin, format: w.format })), onFailure: ctx.config.notify.onFailure, rejectedShareAbove: ctx.config.notify.rejectedShareAbove, notSucceededWithin: ctx.config.notify.notSucceededWithin ?? null },
  });
});

route('GET', /^\/api\/overview$/, async (ctx, _req, res) => {
  const config = await currentConfig(ctx);
  const rows = await overview(config, ctx.store);
  for (const row of rows) if (row.lastRun?.status === 'running') row.lastRun = { ...row.lastRun, counts: liveCounts(row.lastRun as never, ctx.launcher.live) };
  sendJson(res, 200, { syncs: rows });
});

route('GET', /^\/api\/syncs\/([^/]+)$/, async (ctx, _req, res, [sync], url) => {
  const config = await currentConfig(ctx);
  await knownSync(ctx, config, sync!);
  const rows = await overview(config, ctx.store);
  const runs = await ctx.store.runs({ sync, limit: intParam(url, 'runs', 50, 500) });
  sendJson(res, 200, { sync: rows.find((r) => r.sync === sync) ?? null, runs });
});

route('GET', /^\/api\/syncs\/([^/]+)\/runs\/([^/]+)$/, async (ctx, _req, res, [sync, runId]) => {
  const run = await runById(ctx.store, sync!, runId!);
  if (!run) return sendError(res, 404, `no run ${runId} of sync ${sync} among its last 500`);
  const errors = (await ctx.store.failures({ sync: sync!, limit: 500 })).filter((f) => f.runId === runId).slice(0, 100);
  sendJson(res, 200, { run: { ...run, counts: liveCounts(run, ctx.launcher.live) }, errors });
});

route('GET', /^\/api\/syncs\/([^/]+)\/runs\/([^/]+)\/events$/, async (ctx, req, res, [sync, runId]) => {
  const first = await runById(ctx.store, sync!, runId!);
  if (!first) return sendError(res, 404, `no run ${runId} of sync ${sync}`);
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
  let last = '';
  let closed = false;
  req.on('close', () => (closed = true));
  const tick = async (): Promise<boolean> => {
    const run = await runById(ctx.store, sync!, runId!);
    if (!run) return false;
    const event = { runId: run.runId, status: run.status, counts: liveCounts(run, ctx.launcher.live), startedAt: run.startedAt, finishedAt: run.finishedAt, durationMs: run.durationMs, error: run.error };
    const text = JSON.stringify(event);
    if (text !== last) {
      last = text;
      res.write(`event: progress\ndata: ${text}\n\n`);
    }
    return run.status === 'running';
  };
  try {
    while (!closed && (await tick())) await new Promise((resolve) => setTimeout(resolve, ctx.liveMs));
    if (!closed) res.write('event: end\ndata: {}\n\n');
  } catch (error) {
    if (!closed) res.write(`event: error\ndata: ${JSON.stringify({ message: messageOf(error) })}\n\n`);
  }
  res.end();
});

route('GET', /^\/api\/failures$/, async (ctx, _req, res, _p, url) => {
  const sync = url.searchParams.get('sync') || undefined;
  const code = url.searchParams.get('code') || undefined;
  const remoteId = url.searchParams.get('remoteId') || undefined;
  const before = url.searchParams.get('beforeId');
  const page = await failurePage(ctx.store, {
    ...(sync ? { sync } : {}),
    ...(code ? { code } : {}),
    ...(remoteId ? { remoteId } : {}),
    ...(before ? { beforeId: intParam(url, 'beforeId', 1, Number.MAX_SAFE_INTEGER) } : {}),
    limit: intParam(url, 'limit', 50, 500),
  });
  sendJson(res, 200, page);
});

route('GET', /^\/api\/failures\/(\d+)$/, async (ctx, _req, res, [id]) => {
  const entry = await failureById(ctx.store, Number(id));
  if (!entry) return sendError(res, 404, `no dead-letter entry ${id} (retried, purged, or never there)`);
  sendJson(res, 200, entry);
});

/** `{ ids: [..] }` (retry those), `{ sync }` (all of a sync) or `{ all: true }`: what `ferry failures retry [sync]` replays. */
route('POST', /^\/api\/failures\/retry$/, async (ctx, req, res) => {
  const body = await readJson(req);
  const config = await currentConfig(ctx);
  let syncs: string[];
  let ids: number[] | undefined;
  if (Array.isArray(body.ids)) {
    ids = body.ids.map((id) => Number(id));
    if (ids.some((id) => !Number.isInteger(id)) || ids.length === 0) throw new FerryError('FERRY_USAGE', 'ids must be a non-empty list of dead-letter entry ids');
    const entries = await Promise.all(ids.map((id) => failureById(ctx.store, id)));
    const missing = ids.filter((_, i) => entries[i] === undefined);
    if (missing.length > 0) throw new FerryError('FERRY_USAGE', `no dead-letter entries ${missing.join(', ')} (retried or purged meanwhile?)`);
    syncs = [...new Set(entries.map((e) => e!.sync))];
  } else if (typeof body.sync === 'string' && body.sync !== '') {
    syncs = [await knownSync(ctx, config, body.sync)];
  } else if (body.all === true) {
    syncs = [];
    for (const sync of config.syncs) if ((await ctx.store.failureCount(sync.name)) > 0) syncs.push(sync.name);
  } else {
    throw new FerryError('FERRY_USAGE', 'say what to retry: { "ids": [..] }, { "sync": "<name>" } or { "all": true }');
  }
  if (syncs.length === 0) return sendJson(res, 200, { syncs: [], message: 'No failures to retry.' });
  const { launch } = await ctx.launcher.start(ctx.store, { syncs, kind: 'retry', ...(ids ? { failureIds: ids } : {}) });
  // A retry is short and its result is what the page shows next: wait for it.
  while (!launch.done) await new Promise((resolve) => setTimeout(resolve, 50));
  if (launch.error) return sendError(res, 409, launch.error);
  sendJson(res, 200, { syncs: launch.summaries ?? [] });
});

/** `{ ids: [..] }` or `{ sync }` or `{ all: true }`: what `ferry failures purge [sync]` deletes. */
route('POST', /^\/api\/failures\/purge$/, async (ctx, req, res) => {
  const body = await readJson(req);
  if (Array.isArray(body.ids)) {
    const ids = body.ids.map((id) => Number(id)).filter((id) => Number.isInteger(id));
    for (const id of ids) await ctx.store.removeFailure(id);
    return sendJson(res, 200, { purged: ids.length });
  }
  const config = await currentConfig(ctx);
  if (typeof body.sync === 'string' && body.sync !== '') return sendJson(res, 200, { purged: await ctx.store.purgeFailures(await knownSync(ctx, config, body.sync)) });
  if (body.all === true) return sendJson(res, 200, { purged: await ctx.store.purgeFailures() });
  throw new FerryError('FERRY_USAGE', 'say what to purge: { "ids": [..] }, { "sync": "<name>" } or { "all": true }');
});

route('GET', /^\/api\/state$/, async (ctx, _req, res) => {
  sendJson(res, 200, await stateView(await currentConfig(ctx), ctx.store));
});

/** `{ sync, confirm: <sync>, cursorOnly? }`: `ferry state reset <sync> [--cursor-only] --yes`. */
route('POST', /^\/api\/state\/reset$/, async (ctx, req, res) => {
  const body = await readJson(req);
  const sync = typeof body.sync === 'string' ? body.sync : '';
  await knownSync(ctx, await currentConfig(ctx), sync);
  if (body.confirm !== sync) throw new FerryError('FERRY_USAGE', `a reset must be confirmed: send "confirm": "${sync}" (the sync's name)`);
  const cursorOnly = body.cursorOnly === true;
  await resetSync(ctx.store, sync, { cursorOnly }, ctx.logger);
  sendJson(res, 200, { sync, reset: cursorOnly ? ['cursor'] : ['cursor', 'ledger', 'failures'] });
});

route('GET', /^\/api\/data$/, async (_ctx, _req, res) => {
  sendJson(res, 200, { resources: describeResources() });
});

route('GET', /^\/api\/data\/([a-z-]+)$/, async (ctx, _req, res, [resource], url) => {
  sendJson(res, 200, await listPage(ctx.service, resource!, url.searchParams));
});

route('GET', /^\/api\/data\/([a-z-]+)\/([^/]+)$/, async (ctx, _req, res, [resource, id]) => {
  sendJson(res, 200, await getItem(ctx.service, resource!, id!));
});

route('GET', /^\/api\/config$/, async (ctx, _req, res) => {
  const { items, exitCode } = await runChecks(ctx.configFile, { logger: ctx.logger });
  const config = await currentConfig(ctx);
  const declared = (node: { locate(path: readonly (string | number)[]): { file: string; line: number; column: number } }) => {
    const at = node.locate([]);
    return `${at.file}:${at.line}:${at.column}`;
  };
  sendJson(res, 200, {
    file: config.file,
    ok: exitCode === 0,
    exitCode,
    items: items.map((item) => ({ ...item, ...(item.issues?.length ? { text: formatConfigIssues(item.issues) } : {}) })),
    syncs: config.syncs.map((s) => ({ name: s.name, source: s.source.type, target: s.target.type, schedule: s.schedule ?? null, declaredAt: declared(s) })),
    exports: config.exports.map((e) => ({ name: e.name, resource: e.resource, destination: e.destination.type, schedule: e.schedule ?? null, declaredAt: declared(e) })),
  });
});

route('GET', /^\/api\/config\/preview\/([^/]+)$/, async (ctx, _req, res, [sync], url) => {
  const { samples, plan } = await previewSync(ctx.configFile, sync!, intParam(url, 'n', 5, 100));
  sendJson(res, 200, { samples, plan });
});

/** `{ syncs: [..], fullRefresh? }`: `ferry run <syncs…>` in the console's process, under the same locks. */
route('POST', /^\/api\/runs$/, async (ctx, req, res) => {
  const body = await readJson(req);
  const config = await currentConfig(ctx);
  const syncs = Array.isArray(body.syncs) ? body.syncs.map(String) : typeof body.sync === 'string' ? [body.sync] : [];
  if (syncs.length === 0) throw new FerryError('FERRY_USAGE', 'name the syncs to run: { "syncs": ["<name>"] }');
  for (const sync of syncs) {
    if (!config.syncs.some((s) => s.name === sync)) throw new FerryError('FERRY_USAGE', `no sync named "${sync}" in ${config.file}`);
  }
  const { launch, runId } = await ctx.launcher.start(ctx.store, { syncs, kind: 'run', fullRefresh: body.fullRefresh === true });
  if (launch.done && launch.error) return sendError(res, 409, launch.error);
  sendJson(res, 202, { launch: launch.id, sync: syncs[0], runId });
});

route('GET', /^\/api\/launches\/(\d+)$/, async (ctx, _req, res, [id]) => {
  const launch = ctx.launcher.get(Number(id));
  if (!launch) return sendError(res, 404, `no launch ${id} in this console`);
  sendJson(res, 200, launch);
});

/** Answer an /api/ request; false when no route matches. */
export async function handleApi(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const path = url.pathname;
  for (const r of routes) {
    const match = r.pattern.exec(path);
    if (!match) continue;
    if (req.method !== r.method && !(r.method === 'GET' && req.method === 'HEAD')) continue;
    const params = match.slice(1).map((p) => decodeURIComponent(p));
    try {
      await r.handler(ctx, req, res, params, url);
    } catch (error) {
      if (res.headersSent) {
        res.end();
        return true;
      }
      const usage = isFerryError(error) && (error.code === 'FERRY_USAGE' || error.exitCode === 1);
      const status = usage ? 400 : isFerryError(error, 'FERRY_SYNC_LOCKED') ? 409 : isFerryError(error, 'FERRY_SERVICE_ERROR') || isFerryError(error, 'FERRY_SERVICE_UNREACHABLE') ? 502 : 500;
      if (status === 500) ctx.logger.warn({ err: error, path }, `console API error: ${messageOf(error)}`);
      sendError(res, status, isFerryError(error) ? error.describe() : messageOf(error), isFerryError(error) ? { code: error.code } : {});
    }
    return true;
  }
  if (routes.some((r) => r.pattern.test(path))) {
    sendError(res, 405, `${req.method} is not allowed on ${path}`);
    return true;
  }
  return false;
}
