/**
 * Everything one set of options shares across discover(), check() and
 * read(): the redactor, the rate limiter and the OAuth2 token cache, so a
 * token fetched for discovery is reused by the read and the request rate
 * holds across both.
 */
import { createAuth } from './auth.js';
import { ApiClient } from './client.js';
import type { Clock } from '../../../src/sdk/index.js';
import type { HttpOptions } from './options.js';
import { TokenBucket } from './rate-limit.js';
import { Redactor } from '../../../src/sdk/index.js';
import { Transport, type FetchFunction } from './transport.js';

export interface SessionDeps {
  clock: Clock;
  fetch: () => FetchFunction;
  random?: () => number;
}

export function createSession(options: HttpOptions, deps: SessionDeps): ApiClient {
  const redactor = new Redactor();
  for (const [name, value] of Object.entries(options.headers)) redactor.addHeader(name, value);
  for (const stream of options.streams) {
    for (const [name, value] of Object.entries(stream.headers ?? {})) redactor.addHeader(name, value);
  }
  const transport = new Transport({
    retry: options.retry,
    timeoutMs: options.timeoutMs,
    clock: deps.clock,
    fetch: deps.fetch,
    redactor,
    ...(deps.random ? { random: deps.random } : {}),
    ...(options.maxRequestsPerSecond !== undefined ? { limiter: new TokenBucket(options.maxRequestsPerSecond, deps.clock) } : {}),
  });
  const auth = createAuth(options.auth, { transport, clock: deps.clock, redactor });
  return new ApiClient(transport, auth, redactor);
}
