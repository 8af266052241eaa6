import { describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { redact, redactValue, sanitizeError } from '../../../src/api/redact.js';

const KEY = 'sk_live_0123456789abcdef';

describe('redact', () => {
  it('removes the key, bearer tokens and URL credentials', () => {
    expect(redact(`key ${KEY} here`, [KEY])).toBe('key [redacted] here');
    expect(redact('Authorization: Bearer abc.def-123, next')).toBe('Authorization: Bearer [redacted], next');
    expect(redact('postgres://ferry:hunter2@db.internal/crm')).toBe('postgres://[redacted]@db.internal/crm');
  });
  it('leaves short secrets alone rather than blanking words', () => {
    expect(redact('the cat', ['cat'])).toBe('the cat');
  });
  it('walks JSON values', () => {
    expect(redactValue({ detail: { message: `bad ${KEY}`, list: [KEY, 3] } }, [KEY])).toEqual({ detail: { message: 'bad [redacted]', list: ['[redacted]', 3] } });
  });
  it('rebuilds errors without their extra properties', () => {
    const original = Object.assign(new Error(`connect failed for ${KEY}`), { code: 'ECONNREFUSED', headers: { authorization: `Bearer ${KEY}` } });
    const clean = sanitizeError(new Error('outer', { cause: original }), [KEY]);
    const text = inspect(clean, { depth: 10, showHidden: true });
    expect(text).not.toContain(KEY);
    expect((clean.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });
});
