import { describe, it, expect } from 'vitest';
import { classifyFailure, rejectionReason } from '../../../src/sink/service-port.js';
import { serviceErrorFromResponse } from '../../../src/api/service-error.js';
import { FerryError } from '../../../src/sdk/errors.js';

const NOW = Date.parse('2024-05-01T00:00:00Z');
const answer = (status: number, body: unknown = null, retryAfterMs?: number) =>
  serviceErrorFromResponse({ endpoint: 'createRow', status, body, attempts: 1, retryAfterMs });

describe('classifyFailure (with the client\'s real errors)', () => {
  it.each([
    [400, 'permanent'], [404, 'permanent'], [411, 'permanent'], [413, 'permanent'], [422, 'permanent'], [418, 'permanent'],
    [401, 'auth'], [403, 'auth'],
    [408, 'transient'], [409, 'transient'], [429, 'transient'], [500, 'transient'], [502, 'transient'], [503, 'transient'],
  ])('HTTP %i is %s', (status, kind) => {
    expect(classifyFailure(answer(status), NOW).kind).toBe(kind);
  });

  it('carries the Retry-After the client parsed', () => {
    expect(classifyFailure(answer(429, null, 4000), NOW)).toEqual({ kind: 'transient', status: 429, retryAfterMs: 4000 });
  });

  it('reads failures without an HTTP answer', () => {
    expect(classifyFailure(new FerryError('FERRY_SERVICE_UNREACHABLE', 'down'), NOW)).toMatchObject({ kind: 'transient', status: null });
    expect(classifyFailure(new FerryError('FERRY_BODY_TOO_LARGE', 'big'), NOW)).toEqual({ kind: 'permanent', status: null });
    expect(classifyFailure(Object.assign(new Error('x'), { code: 'ECONNRESET' }), NOW).kind).toBe('transient');
    expect(classifyFailure(new FerryError('FERRY_ABORTED', 'stop'), NOW).kind).toBe('fatal');
    expect(classifyFailure(new RangeError('bug'), NOW).kind).toBe('fatal');
  });
});

describe('Retry-After carried by an error', () => {
  const hint = (error: object) => {
    const failure = classifyFailure({ status: 429, ...error }, NOW);
    return failure.kind === 'transient' ? failure.retryAfterMs : 'not transient';
  };
  it('reads delay-seconds and HTTP dates; zero, past and junk mean no hint', () => {
    expect(hint({ retryAfter: '3' })).toBe(3000);
    expect(hint({ retryAfter: new Date(NOW + 9000).toUTCString() })).toBe(9000);
    expect(hint({ retryAfter: '0' })).toBeUndefined();
    expect(hint({ retryAfter: new Date(NOW - 9000).toUTCString() })).toBeUndefined();
    expect(hint({ retryAfter: 'soon' })).toBeUndefined();
    expect(hint({ retryAfterMs: 0 })).toBeUndefined();
  });
});

describe('rejectionReason', () => {
  it('formats the structured body', () => {
    const e = answer(413, { detail: { error: 'payload_too_large', message: 'body over 10 MB', field: null, request_id: 'r-9' } });
    expect(rejectionReason(413, e)).toBe('413 payload_too_large: body over 10 MB (request r-9)');
  });

  it('formats 422 validation lists and plain details', () => {
    const e = answer(422, { detail: [{ loc: ['body', 'fields', 'amount'], msg: 'not a number', type: 'type_error' }] });
    // Read by the client's own (zod) reader of error bodies: the location drops its leading `body`.
    expect(rejectionReason(422, e)).toBe('422: fields.amount: not a number (field fields.amount)');
    expect(rejectionReason(404, answer(404, { detail: 'Not found' }))).toBe('404: Not found');
  });

  it('falls back to the error message when the body says nothing', () => {
    expect(rejectionReason(400, answer(400, 'oops'))).toBe('400: createRow: HTTP 400 oops');
  });
});
