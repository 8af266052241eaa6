/**
 * Waiting on a readable stream whose objects are pulled with `read()`.
 * Node's own async iterator over a stream is an async generator: a few
 * promises and objects for every object read, which a parser yielding
 * hundreds of thousands of rows pays per row. Pulling with `read()` while
 * the stream has rows buffered, and waiting only when it has none, costs a
 * promise per buffer refill instead.
 */
import type { Readable } from 'node:stream';

/**
 * Resolves once `stream` may have something to `read()` (false) or has
 * ended (true); rejects with the stream's error, or when it closed before
 * its end. Call it only after `read()` returned null.
 */
export function readableOrEnded(stream: Readable): Promise<boolean> {
  if (stream.errored) return Promise.reject(stream.errored);
  if (stream.readableEnded) return Promise.resolve(true);
  if (stream.destroyed) return Promise.reject(prematureClose());
  return new Promise<boolean>((resolve, reject) => {
    const settle = (): void => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onReadable = (): void => {
      settle();
      resolve(false);
    };
    const onEnd = (): void => {
      settle();
      resolve(true);
    };
    const onError = (error: unknown): void => {
      settle();
      reject(error);
    };
    const onClose = (): void => {
      settle();
      if (stream.errored) reject(stream.errored);
      else if (stream.readableEnded) resolve(true);
      else reject(prematureClose());
    };
    stream.on('readable', onReadable);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
