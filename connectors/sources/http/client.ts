/**
 * The source API as the reader sees it: JSON requests through the SDK's
 * transport (retries, caps, credentials on their origin only) whose
 * failures are already FerryErrors. A refused credential (401/403) gets one
 * fresh token and one more try; other 4xx are permanent and name the URL
 * (secrets redacted) with a snippet of what the API said.
 */
import { FerryError, bodyText, type AnswerHeaders, type ConnectorLogger, type HttpTransport, type Redactor, type TransportRequest } from '../../../src/sdk/index.js';
import type { AuthProvider } from './auth.js';

export interface JsonResponse {
  body: unknown;
  headers: AnswerHeaders;
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
    private readonly transport: HttpTransport,
    private readonly auth: AuthProvider,
    readonly redactor: Redactor,
  ) {}

  /** `link`: the request follows a link an answer gave (how it was found, and on which page), checked against the origin policy. */
  async json(request: TransportRequest, context: RequestContext, link?: { how: string; from: URL }): Promise<JsonResponse> {
    const { redactor } = this;
    this.auth.logger ??= context.logger;
    const shown = `${request.method} ${redactor.url(request.url)}`;
    let renewed = false;
    for (;;) {
      const response = await this.send(request, context, shown, link);
      const text = bodyText(response.body);
      const snippet = redactor.text(text.slice(0, SNIPPET)).trim();
      const details = { url: redactor.url(response.url), status: response.status, ...(snippet ? { body: snippet } : {}) };
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
              : response.status >= 300 && response.status < 400
                ? 'the API redirected without a Location the reader can follow'
                : 'check the path, params and body of the stream',
          details,
        });
      }
      return { body: parseJson(text, shown, context.where, snippet), headers: response.headers, url: response.url.toString() };
    }
  }

  /** One request through the transport; its refusals (origin, size) and failures get this stream's place and a log line. */
  private async send(request: TransportRequest, context: RequestContext, shown: string, link: { how: string; from: URL } | undefined) {
    try {
      return await this.transport.send(request, {
        signal: context.signal,
        label: shown,
        // One warning per retry, with the URL as shown everywhere (secrets masked).
        onRetry: (event) => {
          const fields = { url: this.redactor.url(request.url), attempt: event.attempt, waitMs: event.delayMs };
          if (event.status === undefined) context.logger.warn({ ...fields, code: event.errorCode }, 'source API unreachable; retrying');
          else context.logger.warn({ ...fields, status: event.status }, 'source API answered a transient error; retrying');
        },
        ...(link ? { reachedBy: link.how, from: link.from } : {}),
      });
    } catch (error) {
      if (!(error instanceof FerryError)) {
        throw new FerryError('FERRY_SOURCE_UNREACHABLE', `${shown} failed: ${this.redactor.text(error instanceof Error ? error.message : String(error))}`, {
          where: context.where,
          cause: error,
          hint: 'check baseUrl and that the API is reachable from here',
        });
      }
      if (error instanceof FerryError && error.where === undefined && error.code !== 'FERRY_ABORTED') {
        throw new FerryError(error.code, this.redactor.text(error.message), {
          where: context.where,
          ...(error.hint === undefined ? {} : { hint: error.hint }),
          ...(error.details === undefined ? {} : { details: error.details }),
          cause: error,
        });
      }
      throw error;
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
