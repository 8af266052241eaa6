/**
 * The four ways a source API is authenticated: bearer token, HTTP Basic, an
 * API key in a header or the query, and an OAuth2 client-credentials token
 * that is fetched, cached until shortly before it expires, and fetched anew
 * when the API refuses it.
 */
import { z } from 'zod';
import { FerryError, OriginPolicy, bodyText, type ConnectorLogger } from '../../../src/sdk/index.js';
import type { Clock } from '../../../src/sdk/index.js';
import type { AuthOption } from './options.js';
import type { HttpTransport, Redactor, TransportRequest } from '../../../src/sdk/index.js';

type OutgoingRequest = TransportRequest;
type AuthDeps = { transport: () => HttpTransport; clock: Clock; redactor: Redactor };

export interface AuthProvider {
  /** The request with credentials added. */
  apply(request: OutgoingRequest, context: { signal: AbortSignal | undefined }): Promise<OutgoingRequest>;
  /** Forget a cached credential after a refusal; true when fetching a new one may help. */
  invalidate(): boolean;
  /** Where it logs what it does (token fetches); the reader sets it. */
  logger?: ConnectorLogger | undefined;
}

const noAuth: AuthProvider = {
  apply: async (request) => request,
  invalidate: () => false,
};

/** Register every secret of `auth` with the redactor and build its provider. */
/** Query parameters of `auth` that carry a credential (an API key in the query): never sent to another origin. */
export function credentialParams(auth: AuthOption | undefined): string[] {
  return auth?.type === 'apiKey' && auth.in === 'query' ? [auth.name] : [];
}

/**
 * Register every secret of `auth` with the redactor and build its provider.
 * The transport calls `apply` only for requests to the origin the
 * credentials belong to (see OriginPolicy).
 */
export function createAuth(auth: AuthOption | undefined, deps: AuthDeps): AuthProvider {
  if (!auth) return noAuth;
  const { redactor } = deps;
  switch (auth.type) {
    case 'bearer':
      redactor.addValue(auth.token);
      return withHeader('authorization', `Bearer ${auth.token}`);
    case 'basic': {
      redactor.addValue(auth.password);
      const encoded = Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
      redactor.addValue(encoded);
      return withHeader('authorization', `Basic ${encoded}`);
    }
    case 'apiKey':
      redactor.addValue(auth.value);
      if (auth.in === 'header') return withHeader(auth.name, auth.value);
      redactor.addParam(auth.name);
      return {
        apply: async (request) => {
          const url = new URL(request.url);
          url.searchParams.set(auth.name, auth.value);
          return { ...request, url };
        },
        invalidate: () => false,
      };
    case 'oauth2':
      redactor.addValue(auth.clientSecret);
      return new ClientCredentials(auth, deps);
  }
}

function withHeader(name: string, value: string): AuthProvider {
  return {
    apply: async (request) => ({ ...request, headers: { ...request.headers, [name.toLowerCase()]: value } }),
    invalidate: () => false,
  };
}

const tokenResponse = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).optional(),
});

type OAuth2 = Extract<AuthOption, { type: 'oauth2' }>;

/** OAuth2 client-credentials grant (RFC 6749 §4.4) with a cached token. */
export class ClientCredentials implements AuthProvider {
  private token: { value: string; expiresAt: number | undefined } | undefined;
  private pending: Promise<string> | undefined;
  /** Tokens fetched so far (for logs and tests). */
  fetched = 0;

  constructor(
    private readonly auth: OAuth2,
    private readonly deps: AuthDeps,
  ) {}

  async apply(request: OutgoingRequest, context: { signal: AbortSignal | undefined }): Promise<OutgoingRequest> {
    const token = await this.current(context);
    return { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } };
  }

  invalidate(): boolean {
    this.token = undefined;
    return true;
  }

  /** The logger of the read that asked for the token first (token fetches are logged at debug). */
  logger: ConnectorLogger | undefined;

  private current(context: { signal: AbortSignal | undefined }): Promise<string> {
    const cached = this.token;
    if (cached && (cached.expiresAt === undefined || this.deps.clock.now() < cached.expiresAt)) return Promise.resolve(cached.value);
    // One token request at a time, however many requests want a token.
    this.pending ??= this.fetchToken(context).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async fetchToken(context: { signal: AbortSignal | undefined }): Promise<string> {
    const { auth } = this;
    const { transport, clock, redactor } = this.deps;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (auth.clientAuth === 'basic') {
      const encoded = Buffer.from(`${encodeURIComponent(auth.clientId)}:${encodeURIComponent(auth.clientSecret)}`).toString('base64');
      redactor.addValue(encoded);
      headers.authorization = `Basic ${encoded}`;
    } else {
      form.set('client_id', auth.clientId);
      form.set('client_secret', auth.clientSecret);
    }
    if (auth.scope !== undefined) form.set('scope', auth.scope);
    if (auth.audience !== undefined) form.set('audience', auth.audience);
    const url = new URL(auth.tokenUrl);
    const requested = clock.now();
    // The token endpoint is its own origin: its credentials (the client secret) go there and nowhere else.
    const answer = await transport().send(
      { method: 'POST', url, headers, body: form.toString() },
      { ...(context.signal ? { signal: context.signal } : {}), paced: false, credentials: false, origins: OriginPolicy.homeOnly(url), label: 'OAuth2 token request' },
    );
    const response = { status: answer.status, text: bodyText(answer.body) };
    const shown = redactor.url(url);
    if (response.status < 200 || response.status >= 300) {
      const snippet = redactor.text(response.text.slice(0, 300));
      const refused = response.status >= 400 && response.status < 500;
      throw new FerryError(
        refused ? 'FERRY_SOURCE_AUTH' : 'FERRY_SOURCE_UNREACHABLE',
        `the OAuth2 token endpoint ${shown} answered ${response.status}${snippet ? `: ${snippet}` : ''}`,
        {
          hint: refused ? 'check clientId, clientSecret, scope and audience' : 'the token endpoint failed; try again later',
          details: { url: shown, status: response.status },
        },
      );
    }
    let parsed: z.output<typeof tokenResponse>;
    try {
      parsed = tokenResponse.parse(JSON.parse(response.text));
    } catch (cause) {
      throw new FerryError('FERRY_SOURCE_AUTH', `the OAuth2 token endpoint ${shown} answered without an access_token`, {
        cause,
        hint: 'the endpoint must answer JSON { "access_token": "…", "expires_in": <seconds> }',
        details: { url: shown, status: response.status },
      });
    }
    redactor.addValue(parsed.access_token);
    this.fetched += 1;
    const lifetime = parsed.expires_in;
    // Renew `margin` early; a token shorter-lived than twice the margin is renewed at half its life.
    const margin = lifetime === undefined ? 0 : Math.min(auth.expiryMarginSeconds, lifetime / 2);
    this.token = {
      value: parsed.access_token,
      expiresAt: lifetime === undefined ? undefined : requested + (lifetime - margin) * 1000,
    };
    this.logger?.debug({ tokenUrl: shown, expiresIn: lifetime ?? null }, 'fetched an OAuth2 access token');
    return parsed.access_token;
  }
}
