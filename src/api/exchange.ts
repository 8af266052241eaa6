/**
 * One HTTP exchange whose answer is read whole as text: undici's `dispatch`
 * with a small handler that keeps the status, the headers and the body
 * chunks. `request()` built a response stream (and an async resource) per
 * call only for the client to read it to the end at once; at thousands of
 * pushes a second that was a visible share of a run's CPU and garbage.
 */
import type { Dispatcher } from 'undici';
import { onAbort } from '../sdk/abort-listeners.js';
import { ResponseTooLarge } from '../sdk/transport/wire.js';
import type { Wire, WireAnswer } from '../sdk/transport/wire.js';

/** Raw outcome of one attempt: the body already as text. */
export interface RawAnswer extends WireAnswer {
  body: string;
}

/**
 * The service client's wire for the SDK's transport: {@link exchange} on the
 * client's own undici pool. A request never has a body the transport would
 * have to re-encode, so it goes as given.
 */
export function dispatcherWire(dispatcher: Dispatcher): Wire {
  return (request, limits) => {
    const target = request.url;
    const origin = typeof target === 'string' ? limits.origin : target.origin;
    const path = typeof target === 'string' ? target : `${target.pathname}${target.search}`;
    const { method, headers, body } = request;
    return exchange(
      dispatcher,
      { origin, path, method: method, headers, body, headersTimeout: limits.timeoutMs, bodyTimeout: limits.timeoutMs },
      limits.signal,
      limits.maxBytes,
    );
  };
}

/**
 * Sends the request and resolves with the whole answer; rejects with
 * undici's error (network, timeout), a {@link ResponseTooLarge} past
 * `maxBytes`, or, when `signal` fires, with its reason.
 */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal?: AbortSignal, maxBytes = Number.POSITIVE_INFINITY): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    const handler = new TextAnswer(resolve, reject, signal, maxBytes);
    try {
      dispatcher.dispatch(options, handler);
    } catch (error) {
      handler.onResponseError(undefined, error as Error);
    }
  });
}

class TextAnswer implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private chunks: Buffer[] = [];
  private received = 0;
  private controller: Dispatcher.DispatchController | undefined;
  private stopListening: (() => void) | undefined;
  private done = false;

  constructor(
    private readonly resolve: (answer: RawAnswer) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly maxBytes: number,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    const signal = this.signal;
    if (signal === undefined || this.stopListening !== undefined) return;
    if (signal.aborted) {
      controller.abort(signal.reason as Error);
      return;
    }
    // One listener set per signal (onAbort): every push in flight listens to the run's one signal.
    this.stopListening = onAbort(signal, () => controller.abort(signal.reason as Error));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // A 1xx answer comes before the final one: only the last counts.
    this.status = statusCode;
    this.headers = headers;
    this.chunks = [];
    this.received = 0;
    const announced = Number(headers['content-length'] ?? Number.NaN);
    // Refused before a byte of the body is read: the connection is closed, not drained.
    if (announced > this.maxBytes) this.tooLarge(announced);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.done) return;
    this.received += chunk.length;
    if (this.received > this.maxBytes) return this.tooLarge(undefined);
    this.chunks.push(chunk);
  }

  private tooLarge(announced: number | undefined): void {
    const error = new ResponseTooLarge(this.maxBytes, announced);
    this.chunks = [];
    this.controller?.abort(error);
    this.onResponseError(this.controller, error);
  }

  onResponseEnd(): void {
    if (this.finish()) return;
    const bytes = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    let text = bytes.toString('utf8');
    // As undici's body.text() does: a byte order mark is not part of the text.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    this.resolve({ status: this.status, headers: this.headers, body: text });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.finish()) return;
    this.reject(error);
  }

  /** True when the exchange had already ended (an error after the end, or twice). */
  private finish(): boolean {
    if (this.done) return true;
    this.done = true;
    this.stopListening?.();
    return false;
  }
}
