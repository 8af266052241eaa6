import { describe, expect, it } from 'vitest';
import { ServiceError, codeForStatus, errorBodyFacts, serviceErrorFromResponse } from '../../../src/api/service-error.js';
import { messageErrorBody, structuredErrorBody, validationErrorBody, issuePath } from '../../../src/api/schemas/errors.js';
import { FerryError } from '../../../src/sdk/errors.js';
import { accepts, rejects } from './expect-schema.js';

const structured = {
  detail: { error: 'payload_too_large', message: 'request body exceeds 10 MB', field: null, request_id: 'req_7f3a' },
};
const validation = {
  detail: [
    { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 50', type: 'less_than_equal' },
    { loc: ['query', 'startedAfter'], msg: 'Input should be a valid datetime', type: 'datetime_parsing' },
  ],
};

describe('error body schemas', () => {
  it('accept the three shapes of the spec', () => {
    accepts(structuredErrorBody, structured);
    accepts(structuredErrorBody, { detail: { error: 'conflict', message: 'source name already exists' } });
    accepts(messageErrorBody, { detail: 'API key missing required scope: read' });
    accepts(validationErrorBody, validation);
    accepts(validationErrorBody, { detail: [{ loc: ['body', 'transcript', 3, 'timestamp'], msg: 'x', type: 'value_error' }] });
  });
  it('reject the others', () => {
    rejects(structuredErrorBody, { detail: { error: 'conflict' } }, 'detail.message');
    rejects(messageErrorBody, { detail: 42 }, 'detail');
    rejects(validationErrorBody, { detail: [{ loc: 'limit', msg: 'x', type: 'y' }] }, 'detail.0.loc');
  });
  it('write issue paths in dot notation', () => {
    expect(issuePath(['transcript', 3, 'timestamp'])).toBe('transcript.3.timestamp');
    expect(issuePath([])).toBeNull();
  });
});

describe('error body facts', () => {
  it('read a structured body', () => {
    expect(errorBodyFacts(structured)).toEqual({ message: 'request body exceeds 10 MB', serviceCode: 'payload_too_large', field: undefined, requestId: 'req_7f3a' });
  });
  it('read a string detail', () => {
    expect(errorBodyFacts({ detail: 'Not found' }).message).toBe('Not found');
  });
  it('summarise a 422 list and name the first field', () => {
    const facts = errorBodyFacts(validation);
    expect(facts.message).toBe('limit: Input should be less than or equal to 50; startedAfter: Input should be a valid datetime');
    expect(facts.field).toBe('limit');
  });
  it('give nothing for unknown bodies', () => {
    expect(errorBodyFacts('<html>502 Bad Gateway</html>').message).toBeUndefined();
    expect(errorBodyFacts(undefined).message).toBeUndefined();
  });
});

describe('classification', () => {
  it('maps statuses to ferry codes', () => {
    expect(codeForStatus(401)).toBe('FERRY_SERVICE_AUTH');
    expect(codeForStatus(403)).toBe('FERRY_SERVICE_AUTH');
    for (const s of [400, 404, 411, 413, 422]) expect(codeForStatus(s)).toBe('FERRY_RECORD_REJECTED');
    for (const s of [408, 409, 429, 500, 503]) expect(codeForStatus(s)).toBe('FERRY_SERVICE_ERROR');
  });

  it('builds a ServiceError that is a FerryError with the service facts', () => {
    const err = serviceErrorFromResponse({ endpoint: 'createDocument', status: 413, body: structured, attempts: 1 });
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toBeInstanceOf(FerryError);
    expect(err.code).toBe('FERRY_RECORD_REJECTED');
    expect(err.permanent).toBe(true);
    expect(err.retryable).toBe(false);
    expect(err.serviceCode).toBe('payload_too_large');
    expect(err.requestId).toBe('req_7f3a');
    expect(err.message).toBe('createDocument: HTTP 413 request body exceeds 10 MB');
    expect(err.details).toMatchObject({ endpoint: 'createDocument', status: 413, serviceCode: 'payload_too_large', requestId: 'req_7f3a' });
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({ code: 'FERRY_RECORD_REJECTED', status: 413, body: structured });
  });

  it('captures no stack trace: an answer has none worth its cost', () => {
    const err = serviceErrorFromResponse({ endpoint: 'createRow', status: 429, body: { detail: 'slow down' }, attempts: 1, retryAfterMs: 1000 });
    expect(err.stack).toBe('ServiceError: createRow: HTTP 429 slow down');
  });

  it('marks transient statuses as not permanent and counts attempts', () => {
    const err = serviceErrorFromResponse({ endpoint: 'createRow', status: 503, body: 'upstream down', attempts: 6 });
    expect(err.permanent).toBe(false);
    expect(err.code).toBe('FERRY_SERVICE_ERROR');
    expect(err.message).toBe('createRow: HTTP 503 upstream down after 6 attempts');
    expect(err.hint).toMatch(/try again later/);
  });

  it('gives auth failures a hint', () => {
    expect(serviceErrorFromResponse({ endpoint: 'health', status: 401, body: undefined, attempts: 1 }).hint).toMatch(/invalid or revoked/);
    expect(serviceErrorFromResponse({ endpoint: 'listDeals', status: 403, body: undefined, attempts: 1 }).hint).toMatch(/scope/);
  });
});
