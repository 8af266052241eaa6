import { afterEach, describe, expect, it } from 'vitest';
import { registerConfigSecrets, registerInterpolated } from '../../../src/config/secrets.js';
import { clearSecrets, redact } from '../../../src/sdk/redact.js';

afterEach(() => clearSecrets());

describe('config secrets', () => {
  it('masks interpolated values, but only the credentials of a URL and never numbers or short words', () => {
    for (const value of ['sk-live-abcdef', 'https://api.example.com/v1?token=tok-123456', '123456', 'true', 'prod']) registerInterpolated(value, '/');
    expect(redact('key sk-live-abcdef')).toBe('key ***');
    expect(redact('at https://api.example.com/v1 with tok-123456')).toBe('at https://api.example.com/v1 with ***');
    expect(redact('read 123456 in prod: true')).toBe('read 123456 in prod: true');
  });

  it('leaves the paths of existing files and folders readable', () => {
    registerInterpolated(import.meta.dirname, '/');
    registerInterpolated('secrets.test.ts', import.meta.dirname);
    expect(redact(`${import.meta.dirname}/secrets.test.ts`)).toBe(`${import.meta.dirname}/secrets.test.ts`);
  });

  it('masks values under credential-named keys and URL passwords, not mapping expressions', () => {
    registerConfigSecrets({
      service: { apiKey: 'literal-key' },
      syncs: [{ source: { url: 'postgres://u:pg-pass-1@db/crm', auth: { type: 'bearer', token: 'tkn-0001' } }, target: { map: { token_count: 'tokens' } } }],
    });
    expect(redact('literal-key pg-pass-1 tkn-0001')).toBe('*** *** ***');
    expect(redact('count tokens')).toBe('count tokens');
  });
});
