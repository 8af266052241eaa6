import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets, passwordOf, redact, redactError, redactSecrets, redactUrl, redactValue, Redactor, registerSecret } from '../../../src/sdk/redact.js';

const KEY = 'sk_live_0123456789abcdef';

afterEach(() => clearSecrets());

describe('redact', () => {
  it('removes given secrets, bearer tokens, URL passwords and password parameters', () => {
    expect(redact(`key ${KEY} here`, [KEY])).toBe('key *** here');
    expect(redact('Authorization: Bearer abc.def-123, next')).toBe('Authorization: Bearer ***, next');
    expect(redact('postgres://ferry:hunter2@db.internal/crm')).toBe('postgres://ferry:***@db.internal/crm');
    expect(redact('see mysql://root@host/db?password=hunter2&ssl=true')).toBe('see mysql://root@host/db?password=***&ssl=true');
    expect(redact('Basic auth failed')).toBe('Basic auth failed');
  });

  it('masks a URL password after a word of any length, and walks a long lowercase value once (a dead-letter excerpt is 64 KiB of it)', () => {
    expect(redact(`${'x'.repeat(40)}https://user:pw@host/path`)).toBe(`${'x'.repeat(40)}https://user:${'***'}@host/path`);
    const long = 'x'.repeat(64 * 1024);
    expect(redact(long)).toBe(long);
  });

  it('redacts given secrets that are not registered, and keeps up as the registry changes', () => {
    const other = 'tok_9876543210fedcba';
    expect(redact(`a ${KEY} b`, [KEY])).toBe('a *** b');
    expect(redact(`a ${encodeURIComponent(`${KEY}/x`)} b`, [`${KEY}/x`])).toBe('a *** b');
    registerSecret(other);
    // The same extra secret after the registry gained one: both are hidden.
    expect(redact(`a ${KEY} ${other} b`, [KEY])).toBe('a *** *** b');
    clearSecrets();
    expect(redact(`a ${KEY} ${other} b`, [KEY])).toBe(`a *** ${other} b`);
    registerSecret(KEY);
    expect(redact(`a ${KEY} b`, [KEY])).toBe('a *** b');
  });

  it('leaves short secrets alone rather than blanking words', () => {
    expect(redact('the cat', ['cat'])).toBe('the cat');
  });

  it('replaces registered secrets everywhere, raw, URL-encoded and JSON-escaped', () => {
    registerSecret('p@ss"word/1');
    expect(redact('a p@ss"word/1 b')).toBe('a *** b');
    expect(redact('a p%40ss%22word%2F1 b')).toBe('a *** b');
    expect(redact(JSON.stringify({ x: 'p@ss"word/1' }))).toBe('{"x":"***"}');
    clearSecrets();
    expect(redact('a p@ss"word/1 b')).toBe('a p@ss"word/1 b');
  });

  it('redactSecrets masks only secrets, leaving look-alike patterns in data alone', () => {
    registerSecret(KEY);
    expect(redactSecrets(`Bearer abc.def https://u:pw@x/?token=1 ${KEY}`)).toBe('Bearer abc.def https://u:pw@x/?token=1 ***');
    expect(redactValue({ note: 'Bearer abc.def' }, [], { patterns: false })).toEqual({ note: 'Bearer abc.def' });
  });

  it('walks JSON values, keys included', () => {
    expect(redactValue({ detail: { message: `bad ${KEY}`, list: [KEY, 3] }, [KEY]: 1 }, [KEY])).toEqual({
      detail: { message: 'bad ***', list: ['***', 3] },
      '***': 1,
    });
  });

  it('rebuilds errors without their extra properties', () => {
    const original = Object.assign(new Error(`connect failed for ${KEY}`), { code: 'ECONNREFUSED', headers: { authorization: `Bearer ${KEY}` } });
    const clean = redactError(new Error('outer', { cause: original }), [KEY]);
    const text = inspect(clean, { depth: 10, showHidden: true });
    expect(text).not.toContain(KEY);
    expect((clean.cause as { code?: string }).code).toBe('ECONNREFUSED');
    expect(clean.stack).toBe('Error: outer');
    expect((clean.cause as Error).stack).toBe(`Error: connect failed for ***`);
  });
});

describe('redactUrl and passwordOf', () => {
  it('masks a URL password and credential-named parameters', () => {
    expect(redactUrl('postgres://user:p%40ss@host:5432/db')).toBe('postgres://user:***@host:5432/db');
    expect(redactUrl('mysql://root@host/db?password=hunter2&ssl=true')).toBe('mysql://root@host/db?password=***&ssl=true');
    expect(redactUrl('postgres://ferry@db/w')).toBe('postgres://ferry@db/w');
    expect(passwordOf('postgres://user:p%40ss@host/db')).toBe('p@ss');
    expect(passwordOf('postgres://user@host/db')).toBeUndefined();
  });
});

describe('Redactor', () => {
  it('masks credential-named parameters, URL passwords and known secret values', () => {
    const redactor = new Redactor();
    redactor.addValue('s3cr3t-value');
    redactor.addParam('hapikey');
    expect(redactor.url('https://u:pw@api.x/a?api_key=1&access_token=2&client_secret=3&hapikey=4&sig=5&page=2')).toBe(
      'https://u:***@api.x/a?api_key=***&access_token=***&client_secret=***&hapikey=***&sig=***&page=2',
    );
    expect(redactor.url('https://api.x/a?q=s3cr3t-value')).toBe('https://api.x/a?q=***');
    expect(redactor.text('{"echo":"client_secret=s3cr3t-value"}')).toBe('{"echo":"client_secret=***"}');
    expect(redactor.text('a%2Fb')).toBe('a%2Fb');
  });

  it('remembers header values only when the header name looks like a credential', () => {
    const redactor = new Redactor();
    redactor.addHeader('X-Api-Key', 'abcd1234');
    redactor.addHeader('Accept-Language', 'en-GB');
    expect(redactor.text('abcd1234 en-GB')).toBe('*** en-GB');
  });

  it('applies the process registry as well', () => {
    registerSecret('registered-secret');
    expect(new Redactor().text('x registered-secret')).toBe('x ***');
  });
});
