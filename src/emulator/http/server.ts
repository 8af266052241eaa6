/**
 * The HTTP front door (node:http, no framework). Per request: a request id,
 * then by path: `/healthcheck`, `/_admin/*`, `/media/*`, or `/v1/*` where
 * faults are injected, the route is matched from ENDPOINTS, the key and
 * scope checked, the body and query parsed with the endpoint's zod schemas,
 * and the handler's result written (checked against the response schema).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import type { App } from '../app.js';
import { bearerToken } from '../auth.js';
import { HANDLERS, RECORD_WRITES } from '../handlers/index.js';
import { serveMedia } from '../media/serve.js';
import { metricsRequestHandler } from '../../metrics/http.js';
import { faultOptions, type EmulatorMetrics } from '../options.js';
import { checkBodyHeaders, checkJsonContentType, drainBody, parseJson, readBody } from './body.js';
import type { Handler, RequestContext } from './context.js';
import { ApiError, QueryValidationError, bodyValidationError, errorBody, queryIssues } from './errors.js';
import { sendJson } from './respond.js';
import { Router } from './router.js';

export interface ServerHooks {
  /** POST /_admin/reset: wipe the data and load the seed again. */
  reset: () => void;
  metrics?: EmulatorMetrics;
}

const REQUEST_ID_HEADER = 'x-request-id';

/** Request ids: a random per-process prefix and a counter (random bytes per request cost a syscall each). */
const REQUEST_ID_PREFIX = `req_${randomBytes(6).toString('hex')}`;
let requestCount = 0;

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  if (typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given)) return given;
  requestCount += 1;
  return `${REQUEST_ID_PREFIX}${requestCount.toString(16).padStart(12, '0')}`;
}

function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (!(key in out)) out[key] = value;
  return out;
}

export function createEmulatorServer(app: App, hooks: ServerHooks): Server {
  const server: EmulatorServer = {
    app,
    hooks,
    router: new Router(),
    serveMetrics: hooks.metrics ? metricsRequestHandler(hooks.metrics) : undefined,
  };
  return createServer((req, res) => {
    void handle(server, req, res);
  });
}

/** What every request of one emulator server shares. */
interface EmulatorServer {
  app: App;
  hooks: ServerHooks;
  router: Router;
  serveMetrics: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
}

type RouteMatch = ReturnType<Router['match']>;
type Decision = ReturnType<App['faults']['decide']>;

/** `seen.endpoint` is set to the route's name once it is matched, for the request metrics. */
async function handleV1(server: EmulatorServer, req: IncomingMessage, res: ServerResponse, url: URL, requestId: string, seen: { endpoint: string }): Promise<void> {
  const { app, router } = server;
  const method = req.method ?? 'GET';
  const decision = app.faults.decide(bearerToken(req) ?? '');
  const match = router.match(method, url.pathname);
  if (match !== undefined && 'route' in match) seen.endpoint = match.route.name;
  const deferLatency = match !== undefined && 'route' in match && RECORD_WRITES.has(match.route.name);
  if (!deferLatency) await app.sleep(decision.latencyMs);
  if (!(await applyFault(req, res, decision, match))) return;
  if (!match || 'methodNotAllowed' in match) return; // applyFault threw for these

  const { route, params } = match;
  const endpoint = route.endpoint;
  const principal = app.keys.authenticate(req, endpoint.scope === 'none' ? null : endpoint.scope);
  const { body, query } = await parseRequest(req, url, endpoint);

  let delaySpent = !deferLatency;
  const ctx: RequestContext = {
    app,
    req,
    requestId,
    principal,
    params,
    query: query as never,
    body: body as never,
    delay: async () => {
      if (delaySpent) return;
      delaySpent = true;
      await app.sleep(decision.latencyMs);
    },
    // The socket, not req: a request stream counts as destroyed once its body has been read.
    aborted: () => req.socket.destroyed,
  };
  const handler = HANDLERS[route.name] as Handler<typeof route.name>;
  let result;
  app.store.beginWriteBatch();
  try {
    result = await handler(ctx);
  } finally {
    // Refusals (400, 404, 409…) take the injected latency too.
    await ctx.delay();
  }
  await app.store.whenCommitted();
  const checked = endpoint.response.safeParse(result.body);
  if (!checked.success && result.status < 300) {
    app.logger.error({ endpoint: route.name, issues: checked.error.issues.slice(0, 3) }, 'emulator response does not match its schema');
  }
  sendJson(res, result.status, result.body, result.headers);
}

/** Apply an injected fault, then refuse unknown routes; false when the connection was dropped. */
async function applyFault(req: IncomingMessage, res: ServerResponse, decision: Decision, match: RouteMatch): Promise<boolean> {
  if (decision.kind === 'drop') {
    req.socket.destroy();
    return false;
  }
  if (decision.kind === 'error500') throw new ApiError(500, null, 'injected fault: internal server error', null, true);
  if (decision.kind === 'throttle') {
    res.setHeader('retry-after', String(decision.retryAfterSeconds));
    throw new ApiError(429, null, decision.reason === 'rate_limit' ? 'rate limit exceeded' : 'injected fault: too many requests', null, true);
  }
  if (!match) throw new ApiError(404, null, 'Not Found', null, true);
  if ('methodNotAllowed' in match) throw new ApiError(405, null, 'Method Not Allowed', null, true);
  return true;
}

/** The request's body and query, validated with the endpoint's schemas. */
async function parseRequest(req: IncomingMessage, url: URL, endpoint: { body?: unknown; query?: unknown }): Promise<{ body: unknown; query: unknown }> {
  let body: unknown;
  if (endpoint.body) {
    checkBodyHeaders(req);
    checkJsonContentType(req);
    const raw = parseJson(await readBody(req));
    const parsed = (endpoint.body as z.ZodType).safeParse(raw);
    if (!parsed.success) throw bodyValidationError(parsed.error);
    body = parsed.data;
  }
  let query: unknown;
  if (endpoint.query) {
    const parsed = (endpoint.query as z.ZodType).safeParse(queryObject(url));
    if (!parsed.success) {
      if ((req.method ?? 'GET') === 'GET') throw new QueryValidationError(queryIssues(parsed.error));
      throw bodyValidationError(parsed.error);
    }
    query = parsed.data;
  }
  return { body, query };
}

async function handleAdmin(server: EmulatorServer, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const { app, hooks } = server;
  if (url.pathname === '/_admin/faults' && req.method === 'GET') return sendJson(res, 200, app.faults.get());
  if (url.pathname === '/_admin/faults' && req.method === 'PUT') {
    checkBodyHeaders(req);
    const parsed = faultOptions.safeParse(parseJson(await readBody(req)));
    if (!parsed.success) throw bodyValidationError(parsed.error);
    app.faults.set(parsed.data);
    return sendJson(res, 200, app.faults.get());
  }
  if (url.pathname === '/_admin/reset' && req.method === 'POST') {
    hooks.reset();
    return sendJson(res, 200, { status: 'reset' });
  }
  throw new ApiError(404, null, 'Not Found', null, true);
}

async function handle(server: EmulatorServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { app } = server;
  const metrics = server.hooks.metrics;
  // Scrapes are not counted among the requests they report.
  if (server.serveMetrics?.(req, res)) return;
  const requestId = requestIdOf(req);
  res.setHeader(REQUEST_ID_HEADER, requestId);
  const method = req.method ?? 'GET';
  const started = performance.now();
  const seen = { endpoint: 'unmatched' };
  try {
    await route(server, req, res, requestId, seen);
  } catch (error) {
    await sendError(app, req, res, error, requestId);
  } finally {
    const ms = performance.now() - started;
    metrics?.observeRequest(seen.endpoint, res.headersSent ? res.statusCode : 0, ms);
    app.logger.debug({ method, url: req.url, status: res.statusCode, ms: Math.round(ms), requestId }, 'request');
  }
}

async function route(server: EmulatorServer, req: IncomingMessage, res: ServerResponse, requestId: string, seen: { endpoint: string }): Promise<void> {
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://emulator.invalid');
  if (url.pathname === '/healthcheck' && (method === 'GET' || method === 'HEAD')) {
    seen.endpoint = 'healthcheck';
    sendJson(res, 200, { status: 'ok' });
  } else if (url.pathname.startsWith('/v1/') || url.pathname === '/v1') {
    await handleV1(server, req, res, url, requestId, seen);
  } else if (url.pathname.startsWith('/_admin/')) {
    seen.endpoint = 'admin';
    await handleAdmin(server, req, res, url);
  } else if (url.pathname.startsWith('/media/') && (method === 'GET' || method === 'HEAD')) {
    seen.endpoint = 'media';
    serveMedia(server.app, req, res, url);
  } else {
    sendJson(res, 404, { detail: 'Not Found' });
  }
}

async function sendError(app: App, req: IncomingMessage, res: ServerResponse, error: unknown, requestId: string): Promise<void> {
  const method = req.method ?? 'GET';
  if (error instanceof ApiError) {
    // A refused upload is read (up to a bound) before the answer, so a client writing its whole body sees it.
    if ((error.status === 413 || error.status === 411) && !(await drainBody(req))) res.setHeader('connection', 'close');
    sendJson(res, error.status, errorBody(error, method, requestId));
  } else if (error instanceof QueryValidationError) {
    sendJson(res, 422, { detail: error.issues });
  } else if (error instanceof Error && error.name === 'InvalidCursorError') {
    const issues = [{ loc: ['query', 'cursor'], msg: error.message, type: 'value_error' }];
    sendJson(res, 422, { detail: issues });
  } else {
    app.logger.error({ err: error, requestId }, 'emulator request failed');
    sendJson(res, 500, { detail: 'internal server error' });
  }
}
