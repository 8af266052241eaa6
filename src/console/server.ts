/**
 * `ferry console`: an HTTP server on loopback (by default) that serves the
 * console's pages and its JSON API over the project's state store and
 * service. It also watches for stalled syncs (notify:), as workers do.
 */
import { createServer } from 'node:http';
import { hostname } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Notifier } from '../notify/notifier.js';
import { loadProject, openProjectState } from '../runtime/project.js';
import { openService } from '../runtime/service.js';
import { FerryError } from '../sdk/errors.js';
import { messageOf } from '../sdk/guards.js';
import { redactUrl } from '../sdk/redact.js';
import { handleApi } from './api.js';
import type { ApiContext } from './api.js';
import { loadAssets } from './assets.js';
import { sendError, sendFile } from './http-io.js';
import { Launcher } from './launcher.js';
import { createGuard, isLoopback, newToken, TOKEN_COOKIE } from './security.js';

export const DEFAULT_PORT = 4310;
export const DEFAULT_HOST = '127.0.0.1';
/** How often the console looks for syncs past their expected interval (as workers do). */
const OVERDUE_CHECK_MS = 60_000;

export interface ConsoleOptions {
  configFile: string;
  host?: string;
  port?: number;
  /** The access token; required off loopback (one is generated when omitted there). */
  token?: string;
  logger: Logger;
  /** How often a live run's page is updated (ms). @default 500 */
  liveMs?: number;
}

export interface RunningConsole {
  /** The address to open, with `?access=<token>` when the console needs one (not `token=`: the terminal's redactor masks parameters named like credentials). */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const host = options.host ?? DEFAULT_HOST;
  const loopback = isLoopback(host);
  const token = options.token ?? (loopback ? undefined : newToken());
  if (!loopback && token !== undefined && token.length < 16) {
    throw new FerryError('FERRY_USAGE', 'the access token must be at least 16 characters', { hint: 'omit --token to have one generated' });
  }
  const config = await loadProject(options.configFile);
  const store = await openProjectState(config, options.logger);
  const connection = await openService(config, { logger: options.logger.child({ component: 'console' }) }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const guard = createGuard(token);
  const launcher = new Launcher(options.configFile, options.logger);
  const assets = loadAssets();
  const ctx: ApiContext = {
    configFile: options.configFile,
    config,
    store,
    service: connection.client,
    serviceLabel: connection.embedded ? 'embedded emulator' : redactUrl(connection.baseUrl),
    launcher,
    guard,
    logger: options.logger,
    liveMs: options.liveMs ?? 500,
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const refusal = guard.refuse(req, url);
    if (refusal) return sendError(res, refusal.status, refusal.message);
    // The token in the first URL becomes a cookie, and the address loses it (history, screenshots, Referer).
    if (token !== undefined && url.searchParams.has('access') && !guard.hasToken(req)) {
      url.searchParams.delete('access');
      res.writeHead(303, {
        location: `${url.pathname}${url.search}`,
        'set-cookie': `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`,
        'cache-control': 'no-store',
      });
      res.end();
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      if (!(await handleApi(ctx, req, res, url))) sendError(res, 404, `no API route ${url.pathname}; see docs/console.md`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, `${req.method} is not allowed here`);
    const asset = assets.get(url.pathname);
    if (asset) return sendFile(res, asset.body, asset.type, { 'cache-control': 'no-cache' });
    if (url.pathname.startsWith('/assets/')) return sendError(res, 404, `no asset ${url.pathname}`);
    // Every page address is the same shell; the script routes it (History API), so links and the back button work.
    const shell = assets.get('/assets/index.html')!;
    sendFile(res, shell.body, shell.type);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.warn({ err: error }, `console request failed: ${messageOf(error)}`);
      if (!res.headersSent) sendError(res, 500, messageOf(error));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => resolve());
  }).catch(async (error: unknown) => {
    await connection.close();
    await store.close();
    const code = (error as { code?: string }).code;
    throw new FerryError('FERRY_USAGE', `cannot listen on ${host}:${options.port ?? DEFAULT_PORT}: ${messageOf(error)}`, {
      cause: error,
      hint: code === 'EADDRINUSE' ? 'another program uses that port: pass --port <n> (0 picks a free one)' : 'check --host and --port',
    });
  });
  const port = (server.address() as AddressInfo).port;
  // Bound to every interface: print the machine's name, which a browser elsewhere can reach.
  const reachable = host === '0.0.0.0' || host === '::' ? hostname() : host;
  const shownHost = reachable.includes(':') ? `[${reachable}]` : reachable;
  guard.allowHosts([`${shownHost}:${port}`, ...(loopback ? [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`] : [])]);

  const notifier = new Notifier(config, options.logger);
  const overdue = notifier.enabled
    ? setInterval(() => void notifier.checkOverdue(store).catch((error: unknown) => options.logger.warn({ err: error }, 'could not check for stalled syncs')), OVERDUE_CHECK_MS)
    : undefined;
  overdue?.unref();
  if (notifier.enabled) void notifier.checkOverdue(store).catch(() => undefined);

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}/${token !== undefined ? `?access=${token}` : ''}`,
    port,
    close() {
      closing ??= (async () => {
        clearInterval(overdue);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await launcher.settle();
        await connection.close();
        await store.close();
      })();
      return closing;
    },
  };
}
