/**
 * One exchange on the wire, and nothing else: no retry, no redirect, no
 * credentials (the transport does those). The default wire is `fetch` with
 * `redirect: 'manual'`, reading the body with a cap: a `Content-Length`
 * above it is refused before a byte is read, and a body that grows past it
 * while being decompressed (a gzip bomb) is cancelled at the cap, so memory
 * stays bounded by the cap whatever the server sends.
 */

/** A request as the wire sends it. */
export interface WireRequest {
  method: string;
  /** Where to: a URL, or a path (and query) on the transport's home origin (the service client's, built without a URL object). */
  url: URL | string;
  headers: Record<string, string>;
  body?: string | Buffer | undefined;
}

/** Headers of an answer, names in lower case. */
export type AnswerHeaders = Record<string, string | string[] | undefined>;

/** What came back: the body as bytes, or already as text (a wire that decodes it itself, as the service client's does). */
export interface WireAnswer {
  status: number;
  headers: AnswerHeaders;
  body: Buffer | string;
}

/** An answer's body as text (UTF-8). */
export function bodyText(body: Buffer | string): string {
  return typeof body === 'string' ? body : body.toString('utf8');
}

/** How one exchange is bounded. */
export interface WireLimits {
  signal: AbortSignal | undefined;
  /** The transport's home origin, which a path-only `url` is on. */
  origin: string;
  /** No complete answer within this long: the attempt fails with a `TimeoutError`. */
  timeoutMs: number;
  /** Bytes of (decompressed) body at most. */
  maxBytes: number;
}

/** Sends one request. Rejects with the network's error, a `TimeoutError`, the signal's reason or a {@link ResponseTooLarge}. */
export type Wire = (request: WireRequest, limits: WireLimits) => Promise<WireAnswer>;

/** A `fetch` as the wire calls it. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Thrown by a wire when an answer is larger than the cap; the transport turns it into the caller's error. */
export class ResponseTooLarge extends Error {
  constructor(
    readonly limit: number,
    /** The announced length, when the refusal came before reading. */
    readonly contentLength: number | undefined,
  ) {
    super(contentLength === undefined ? `the answer grew past ${limit} bytes` : `the answer announced ${contentLength} bytes, over the cap of ${limit}`);
    this.name = 'ResponseTooLarge';
  }
}

/**
 * The default wire, on `fetch` (resolved per request, so a fetch patched
 * later, as nock does, is still the one used).
 */
export function fetchWire(fetchOf: () => FetchFunction = () => fetch): Wire {
  return async (request, limits) => {
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = limits.signal ? AbortSignal.any([limits.signal, timeout]) : timeout;
    const response = await fetchOf()(typeof request.url === 'string' ? `${limits.origin}${request.url}` : request.url.toString(), {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal,
      redirect: 'manual',
    });
    const headers: AnswerHeaders = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = await readCapped(response, limits.maxBytes);
    return { status: response.status, headers, body };
  };
}

/** The whole body, or a {@link ResponseTooLarge} as soon as it is known to be over `maxBytes`. */
export async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const announced = Number(response.headers.get('content-length') ?? Number.NaN);
  // Content-Length counts the bytes on the wire; a compressed body only grows when decoded (and is counted as it is, below).
  if (Number.isFinite(announced) && announced > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ResponseTooLarge(maxBytes, announced);
  }
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = (await reader.read()) as { done: true; value?: undefined } | { done: false; value: Uint8Array };
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLarge(maxBytes, undefined);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
