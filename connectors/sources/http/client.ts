/**
 * The source API as the reader sees it: authenticated JSON requests whose
 * failures are already FerryErrors. A refused credential (401/403) gets one
 * fresh token and one more try; other 4xx are permanent and name the URL
 * (secrets redacted) with a snippet of what the API said.
 */
import { FerryError, type ConnectorLogger } from '../../../src/sdk/index.js';
import type { AuthProvider } from './auth.js';
import type { Redactor } from '../../../src/sdk/index.js';
import type { OutgoingRequest, Transport } from './transport.js';

export interface JsonResponse {
  body: unknown;
  headers: Headers;
  /** The final URL, unredacted (pagination resolves relative links against it). */
  url: string;
}

export interface RequestContext {
  signal: AbortSignal;
  logger: ConnectorLogger;
  /** Where in the config the request comes from, for messages: `sync x, stream y`. */
  where: string;
}

const SNIPPET = 300;

export class ApiClient {
  constructor(
    private readonly transport: Transport,
    private readonly auth: AuthProvider,
    readonly redactor: Redactor,
  ) {}

  async json(request: OutgoingRequest, context: RequestContext): Promise<JsonResponse> {
    const { redactor } = this;
    let renewed = false;
    for (;;) {
      const authed = await this.auth.apply(request, context);
      const response = await this.transport.send(authed, { ...context, paced: true });
      const shown = `${request.method} ${redactor.url(authed.url)}`;
      const snippet = redactor.text(response.text.slice(0, SNIPPET)).trim();
      const details = { url: redactor.url(authed.url), status: response.status, ...(snippet ? { body: snippet } : {}) };
      if (response.status === 401 || response.status === 403) {
        if (!renewed && this.auth.invalidate()) {
          renewed = true;
          context.logger.info({ url: details.url, status: response.status }, 'source API refused the token; fetching a new one');
          continue;
        }
        throw new FerryError('FERRY_SOURCE_AUTH', `${shown} was refused (${response.status})${snippet ? `: ${snippet}` : ''}`, {
          where: context.where,
          hint: 'check the credentials under auth: (and that they grant access to this endpoint)',
          details,
        });
      }
      if (response.status < 200 || response.status >= 300) {
        throw new FerryError('FERRY_SOURCE_READ_FAILED', `${shown} answered ${response.status}${snippet ? `: ${snippet}` : ''}`, {
          where: context.where,
          hint:
            response.status === 429 || response.status >= 500
              ? 'the API kept failing after every retry; lower maxRequestsPerSecond or raise retry.maxAttempts'
              : 'check the path, params and body of the stream',
          details,
        });
      }
      return { body: parseJson(response.text, shown, context.where, snippet), headers: response.headers, url: response.url };
    }
  }
}

function parseJson(text: string, shown: string, where: string, snippet: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new FerryError('FERRY_SOURCE_READ_FAILED', `${shown} answered something that is not JSON: ${snippet}`, {
      cause,
      where,
      hint: 'the http source reads JSON APIs; check the path (an HTML page usually means a wrong URL)',
    });
  }
}
