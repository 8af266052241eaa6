/**
 * Everything one set of options shares across discover(), check() and
 * read(): the redactor, the transport (its request control, breaker and
 * origin policy) and the OAuth2 token cache, so a token fetched for
 * discovery is reused by the read and what the API's answers taught of its
 * limit holds across both.
 */
import { createAuth, credentialParams } from './auth.js';
import { ApiClient } from './client.js';
import type { Clock, FetchFunction } from '../../../src/sdk/index.js';
import type { HttpOptions } from './options.js';
import { HttpTransport, OriginPolicy, Redactor, RequestControl, fetchWire, monotonicClock } from '../../../src/sdk/index.js';

export interface SessionDeps {
  clock: Clock;
  /** The request control's clock (its pacing and round trips). @default the monotonic clock */
  pacingClock?: Clock;
  fetch: () => FetchFunction;
  random?: () => number;
}

export function createSession(options: HttpOptions, deps: SessionDeps): ApiClient {
  const redactor = new Redactor();
  for (const [name, value] of Object.entries(options.headers)) redactor.addHeader(name, value);
  for (const stream of options.streams) {
    for (const [name, value] of Object.entries(stream.headers ?? {})) redactor.addHeader(name, value);
  }
  // The OAuth2 grant sends its token request through the same transport, built just below.
  const auth = createAuth(options.auth, { clock: deps.clock, redactor, transport: () => transport });
  const transport: HttpTransport = new HttpTransport({
    origins: new OriginPolicy({ home: options.baseUrl, allowed: options.allowedOrigins, trusted: options.trustedOrigins }),
    // maxDelayMs caps every wait, Retry-After included; no outage budget: a source read fails after its attempts.
    retry: { ...options.retry, maxRetryAfterMs: options.retry.maxDelayMs, minDelayMs: 0, outageBudgetMs: 0 },
    timeoutMs: options.timeoutMs,
    maxResponseBytes: options.maxResponseBytes,
    wire: fetchWire(deps.fetch),
    authorize: (request, context) => auth.apply(request, context),
    credentialParams: credentialParams(options.auth),
    sleep: (ms, signal) => deps.clock.sleep(ms, signal),
    wallClock: () => deps.clock.now(),
    errors: { what: 'the source API', showUrl: (url) => redactor.url(url) },
    ...(deps.random ? { random: deps.random } : {}),
    // The API's limit is found from its answers (429, Retry-After, RateLimit-* headers), as the service's is;
    // maxRequestsPerSecond only bounds it (a quota shared with other clients of the API).
    control: new RequestControl({
      ...(options.maxRequestsPerSecond !== undefined ? { maxRequestsPerSecond: options.maxRequestsPerSecond } : {}),
      clock: deps.pacingClock ?? monotonicClock,
      wallClock: () => deps.clock.now(),
    }),
  });
  return new ApiClient(transport, auth, redactor);
}
