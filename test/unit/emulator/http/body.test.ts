import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { drainBody, readBody } from '../../../../src/emulator/http/body.js';
import type { ApiError } from '../../../../src/emulator/http/errors.js';

/** A request body as a stream: what readBody reads from an IncomingMessage. */
function body(): PassThrough & { complete?: boolean; socket?: { destroyed: boolean } } {
  const stream = new PassThrough() as PassThrough & { complete?: boolean; socket?: { destroyed: boolean } };
  stream.socket = { destroyed: false };
  return stream;
}
const asRequest = (stream: PassThrough) => stream as unknown as IncomingMessage;

describe('readBody', () => {
  it('joins the chunks of a body in order', async () => {
    const req = body();
    const read = readBody(asRequest(req));
    req.write('{"a":');
    req.write('1}');
    req.end();
    expect((await read).toString()).toBe('{"a":1}');
  });

  it('refuses a body over the limit with 413 and leaves the rest to be drained', async () => {
    const req = body();
    const read = readBody(asRequest(req), 10);
    req.write('12345');
    req.write('678901234');
    await expect(read).rejects.toMatchObject({ status: 413, code: 'payload_too_large' } satisfies Partial<ApiError>);
    expect(req.isPaused()).toBe(true);
    const drained = drainBody(asRequest(req));
    req.end('the rest');
    expect(await drained).toBe(true);
  });

  it('reads a body already read to its end as empty, instead of waiting for an end that came before', async () => {
    const req = body();
    req.end('{}');
    req.resume();
    await new Promise((resolve) => req.once('end', resolve));
    expect((await readBody(asRequest(req))).length).toBe(0);
  });

  it('rejects when the client goes away before the body ends, instead of waiting for ever', async () => {
    const req = body();
    const read = readBody(asRequest(req));
    req.write('{"a":');
    req.destroy();
    await expect(read).rejects.toThrow(/closed the connection before the request body ended/);
  });
});
