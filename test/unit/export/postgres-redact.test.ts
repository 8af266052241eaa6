import { describe, expect, it } from 'vitest';
import { redactMessage, redactUrl } from '../../../connectors/postgres-table/redact.js';

describe('postgres-table redaction', () => {
  const url = 'postgres://ferry:s3cr%40t@db.example:5432/warehouse';

  it('hides the password of a URL', () => {
    expect(redactUrl(url)).toBe('postgres://ferry:***@db.example:5432/warehouse');
    expect(redactUrl('postgres://ferry@db/w')).toBe('postgres://ferry@db/w');
  });

  it('hides the password in a driver message, raw or decoded', () => {
    expect(redactMessage(`failed for ${url} with s3cr@t and s3cr%40t`, url)).toBe('failed for postgres://ferry:***@db.example:5432/warehouse with *** and ***');
  });
});
