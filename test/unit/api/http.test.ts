import { describe, expect, it } from 'vitest';
import { buildQuery, fillPath, normaliseBaseUrl, resolveLocation, serialiseBody } from '../../../src/api/http.js';
import { BODY_LIMIT_BYTES } from '../../../src/api/schemas/common.js';
import { isFerryError } from '../../../src/sdk/errors.js';

describe('base URL', () => {
  it('splits off a path prefix with or without trailing slash', () => {
    expect(normaliseBaseUrl('https://api.example.com').prefix).toBe('');
    expect(normaliseBaseUrl('https://api.example.com/').prefix).toBe('');
    expect(normaliseBaseUrl('https://api.example.com/service//').prefix).toBe('/service');
  });
  it('drops credentials, query and fragment', () => {
    const { url } = normaliseBaseUrl('https://user:secret@api.example.com/x?y=1#z');
    expect(url.href).toBe('https://api.example.com/x');
  });
  it('refuses what is not an http(s) URL', () => {
    expect(() => normaliseBaseUrl('embedded')).toThrow(/not a URL/);
    expect(() => normaliseBaseUrl('ftp://api.example.com')).toThrow(/http or https/);
  });
});

describe('path parameters', () => {
  it('are URL-encoded', () => {
    expect(fillPath('/v1/deals/{dealId}', { dealId: 'GTX Pro/1?#' })).toBe('/v1/deals/GTX%20Pro%2F1%3F%23');
    expect(fillPath('/v1/ask-assistant/{threadId}/{runId}', { threadId: 't', runId: 'r' })).toBe('/v1/ask-assistant/t/r');
  });
  it('must all be given', () => {
    expect(() => fillPath('/v1/rows/{rowId}', {}, 'getRow')).toThrow(/getRow: path parameter "rowId" is missing/);
    expect(() => fillPath('/v1/rows/{rowId}', { rowId: '' })).toThrow(/missing/);
  });
});

describe('query strings', () => {
  it('carry defined values only, in order', () => {
    expect(buildQuery({ limit: 2, title: 'harper valley', type: undefined, crmName: null, closed: false })).toBe('?limit=2&title=harper+valley&closed=false');
    expect(buildQuery({})).toBe('');
    expect(buildQuery(undefined)).toBe('');
    expect(buildQuery({ startedAfter: new Date(1590862374809) })).toBe('?startedAfter=2020-05-30T18%3A12%3A54.809Z');
  });
  it('refuse nested values', () => {
    expect(() => buildQuery({ owner: { name: 'x' } }, 'listDeals')).toThrow(/listDeals: query parameter "owner"/);
  });
});

describe('bodies', () => {
  it('are JSON bytes', () => {
    expect(serialiseBody({ name: 'crm', displayName: 'Café' }, 'createSource').toString('utf8')).toBe('{"name":"crm","displayName":"Café"}');
    // Bytes, not characters: é is two bytes in UTF-8.
    expect(serialiseBody({ displayName: 'é' }, 'x').length).toBe(20);
  });
  it('over the limit are refused with the endpoint and size', () => {
    let caught: unknown;
    try {
      serialiseBody({ content: 'a'.repeat(BODY_LIMIT_BYTES) }, 'createDocument');
    } catch (error) {
      caught = error;
    }
    expect(isFerryError(caught, 'FERRY_BODY_TOO_LARGE')).toBe(true);
    const err = caught as { message: string; details: Record<string, unknown> };
    expect(err.message).toContain('createDocument');
    expect(err.details).toEqual({ endpoint: 'createDocument', bytes: BODY_LIMIT_BYTES + 14, limit: BODY_LIMIT_BYTES });
  });
  it('at the limit exactly are sent', () => {
    const padding = BODY_LIMIT_BYTES - '{"c":""}'.length;
    expect(serialiseBody({ c: 'a'.repeat(padding) }, 'x').length).toBe(BODY_LIMIT_BYTES);
  });
});

describe('Location', () => {
  const { url, prefix } = normaliseBaseUrl('http://127.0.0.1:8080/service');
  it('resolves relative to the base URL', () => {
    expect(resolveLocation('/v1/ask-assistant/t/r', url, prefix)).toBe('/service/v1/ask-assistant/t/r');
    expect(resolveLocation('/service/v1/ask-assistant/t/r', url, prefix)).toBe('/service/v1/ask-assistant/t/r');
    expect(resolveLocation('http://127.0.0.1:8080/service/v1/ask-assistant/t/r', url, prefix)).toBe('/service/v1/ask-assistant/t/r');
  });
  it('never points at another origin', () => {
    expect(resolveLocation('https://evil.example/v1/ask-assistant/t/r', url, prefix)).toBeUndefined();
    expect(resolveLocation('//evil.example/x', url, prefix)).toBeUndefined();
  });
});
