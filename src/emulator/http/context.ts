/** What a /v1 handler receives and returns. */
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import type { ENDPOINTS, EndpointName } from '../../api/endpoints.js';
import type { App } from '../app.js';
import type { Principal } from '../auth.js';

type Endpoints = typeof ENDPOINTS;
type QueryOf<N extends EndpointName> = Endpoints[N] extends { query: infer Q extends z.ZodType } ? z.output<Q> : undefined;
type BodyOf<N extends EndpointName> = Endpoints[N] extends { body: infer B extends z.ZodType } ? z.output<B> : undefined;

export interface RequestContext<N extends EndpointName = EndpointName> {
  app: App;
  req: IncomingMessage;
  requestId: string;
  principal: Principal;
  params: Record<string, string>;
  query: QueryOf<N>;
  body: BodyOf<N>;
  /**
   * The injected latency of this request. Record writes await it while
   * holding their record lock (so concurrent writes collide as in the
   * service); other handlers find it already spent.
   */
  delay: () => Promise<void>;
  /** True once the client has gone away, so long waits can stop early. */
  aborted: () => boolean;
}

export interface HandlerResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Handler<N extends EndpointName> = (ctx: RequestContext<N>) => HandlerResult | Promise<HandlerResult>;
export type HandlerTable = { [N in EndpointName]: Handler<N> };

export const ok = (body: unknown, status = 200): HandlerResult => ({ status, body });
