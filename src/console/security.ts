/**
 * Who may talk to the console, and how a state-changing call proves it came
 * from the console's own page.
 *
 * - Bound to loopback (the default), any local client may read; bound to any
 *   other address, every request needs the access token: in the first URL
 *   (`/?access=…`, exchanged for an HttpOnly, SameSite=Strict cookie) or as
 *   `Authorization: Bearer …` for scripts.
 * - On loopback, the Host header must name the address the console listens
 *   on (or localhost): a page of another site that rebinds its DNS name to
 *   127.0.0.1 gets nothing. (Off loopback the token does that job.)
 * - POST (retry, purge, reset, run) needs the `X-Ferry-Csrf` header carrying
 *   the session's token, which only a same-origin page can read from
 *   /api/session, and an Origin, when sent, of the console itself. A bearer
 *   token also proves it (a browser cannot attach one cross-site).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export const CSRF_HEADER = 'x-ferry-csrf';
export const TOKEN_COOKIE = 'ferry_console';

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

function same(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface Guard {
  /** The access token, when one is required (bound off loopback, or asked for). */
  readonly accessToken: string | undefined;
  /** The token a state-changing call must send in {@link CSRF_HEADER}. */
  readonly csrfToken: string;
  /** The host names (with port) a request may address; with an access token any (the token is the proof then). */
  allowHosts(hosts: readonly string[]): void;
  /** Why this request is refused (status and message), or undefined when it may proceed. */
  refuse(req: IncomingMessage, url: URL): { status: number; message: string } | undefined;
  /** Whether the request carries the access token (bearer or cookie). */
  hasToken(req: IncomingMessage): boolean;
}

export function createGuard(accessToken: string | undefined): Guard {
  const csrfToken = newToken();
  let hosts = new Set<string>();
  const cookieToken = (req: IncomingMessage): string | undefined => {
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const [name, ...rest] = part.trim().split('=');
      if (name === TOKEN_COOKIE) return rest.join('=');
    }
    return undefined;
  };
  const bearer = (req: IncomingMessage): string | undefined => {
    const header = req.headers.authorization;
    return header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
  };
  const guard: Guard = {
    accessToken,
    csrfToken,
    allowHosts(list) {
      hosts = new Set(list.map((h) => h.toLowerCase()));
    },
    hasToken(req) {
      return accessToken !== undefined && (same(bearer(req), accessToken) || same(cookieToken(req), accessToken));
    },
    refuse(req, url) {
      const host = (req.headers.host ?? '').toLowerCase();
      // Off loopback the console is reached by whatever name the machine has; a rebinding page has no token there.
      if (accessToken === undefined && !hosts.has(host)) return { status: 421, message: `this console answers only for ${[...hosts].join(', ')}, not for Host ${JSON.stringify(host)}` };
      const tokenOk = accessToken === undefined || guard.hasToken(req) || same(url.searchParams.get('access') ?? undefined, accessToken);
      if (!tokenOk) return { status: 401, message: 'this console needs its access token: open the URL `ferry console` printed (it carries ?access=…), or send the token as a bearer Authorization header' };
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        const origin = req.headers.origin;
        if (origin !== undefined && origin !== 'null' && originHost(origin) !== host && !hosts.has(originHost(origin))) {
          return { status: 403, message: `cross-site request refused (Origin ${origin})` };
        }
        if (origin === 'null') return { status: 403, message: 'cross-site request refused (Origin null)' };
        const headerValue = req.headers[CSRF_HEADER];
        const viaBearer = accessToken !== undefined && same(bearer(req), accessToken);
        if (!viaBearer && !same(typeof headerValue === 'string' ? headerValue : undefined, csrfToken)) {
          return { status: 403, message: `state-changing requests need the ${CSRF_HEADER} header from GET /api/session (or an Authorization header carrying the access token)` };
        }
      }
      return undefined;
    },
  };
  return guard;
}

function originHost(origin: string): string {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return '';
  }
}
