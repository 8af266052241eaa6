import { describe, expect, it } from 'vitest';
import { httpOptions } from '../../../connectors/sources/http/options.js';

function issues(input: unknown): string[] {
  const result = httpOptions.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('http options', () => {
  it('normalises a single top-level stream with defaults', () => {
    expect(httpOptions.parse({ baseUrl: 'https://api.x/v1', path: '/tickets', primaryKey: 'id' })).toEqual({
      baseUrl: 'https://api.x/v1',
      headers: {},
      retry: { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 60_000 },
      timeoutMs: 30_000,
      allowedOrigins: [],
      trustedOrigins: [],
      maxResponseBytes: 64 * 1024 * 1024,
      streams: [{ name: '/tickets', path: '/tickets', method: 'GET', recordSelector: '$', primaryKey: ['id'], pagination: { type: 'none' }, includeParentKey: false }],
      stream: '/tickets',
      primaryKey: ['id'],
    });
  });

  it('selects a stream of a list and exposes its primary key at the top, where the runner reads it', () => {
    const parsed = httpOptions.parse({
      baseUrl: 'https://api.x',
      stream: 'users',
      streams: [
        { name: 'accounts', path: '/accounts', primaryKey: 'id' },
        { name: 'users', path: '/accounts/{account_id}/users', primaryKey: ['account_id', 'uid'], parent: { stream: 'accounts', key: 'id', as: 'account_id' } },
      ],
    });
    expect(parsed.stream).toBe('users');
    expect(parsed.primaryKey).toEqual(['account_id', 'uid']);
  });

  it('writes query values given as YAML numbers and booleans as text', () => {
    const parsed = httpOptions.parse({ baseUrl: 'https://api.x', path: '/a', params: { limit: 100, archived: false }, headers: { 'X-Version': 2 } });
    expect(parsed.streams[0]!.params).toEqual({ limit: '100', archived: 'false' });
    expect(parsed.headers).toEqual({ 'X-Version': '2' });
  });

  it('fills pagination and auth defaults', () => {
    const parsed = httpOptions.parse({
      baseUrl: 'https://api.x',
      path: '/a',
      pagination: { type: 'offset' },
      auth: { type: 'oauth2', tokenUrl: 'https://auth.x/token', clientId: 'c', clientSecret: 's' },
    });
    expect(parsed.streams[0]!.pagination).toEqual({ type: 'offset', param: 'offset', limitParam: 'limit', limit: 100, in: 'query' });
    expect(parsed.auth).toMatchObject({ clientAuth: 'body', expiryMarginSeconds: 60 });
  });

  it('explains what is wrong, with paths', () => {
    expect(issues({ baseUrl: 'ftp://x', path: '/a' })).toEqual(['baseUrl: baseUrl must be an http(s) URL']);
    expect(issues({ baseUrl: 'https://x' })).toEqual(['path: give the endpoint as `path` (one stream) or a `streams` list']);
    expect(issues({ baseUrl: 'https://x', path: '/a', recordSelector: '$..items' })[0]).toMatch(/^recordSelector: recursive descent ".." \(position 1\) is not supported/);
    expect(issues({ baseUrl: 'https://x', path: '/a', pagination: { type: 'cursor' } })).toEqual(['pagination.cursorPath: Invalid input: expected string, received undefined']);
    expect(issues({ baseUrl: 'https://x', path: '/a', pagination: { type: 'pages' } })[0]).toMatch(/^pagination.type: /);
    expect(issues({ baseUrl: 'https://x', path: '/a', auth: { type: 'bearer', token: 't', extra: 1 } })[0]).toMatch(/^auth: Unrecognized key: "extra"/);
    expect(issues({ baseUrl: 'https://x', path: '/a', body: { q: 1 } })).toEqual(['body: a body is only sent with `method: POST`']);
    expect(issues({ baseUrl: 'https://x', path: '/a', pagination: { type: 'page', in: 'body' } })).toEqual([': `in: body` needs `method: POST`']);
    expect(issues({ baseUrl: 'https://x', path: '/a/{id}' })).toEqual(['path: placeholder {id} is not bound: add parent: { stream: <name>, key: <field>, as: id }']);
  });

  it('checks stream lists: selection, duplicates, parents, cycles and misplaced keys', () => {
    const a = { name: 'a', path: '/a' };
    const b = { name: 'b', path: '/b' };
    expect(issues({ baseUrl: 'https://x', streams: [a, b] })).toEqual(['stream: name the stream this sync reads: one of a, b']);
    expect(issues({ baseUrl: 'https://x', streams: [a, b], stream: 'c' })).toEqual(['stream: no stream "c"; streams are a, b']);
    expect(issues({ baseUrl: 'https://x', streams: [a, a] })).toContain('streams.1.name: stream "a" is declared twice');
    expect(issues({ baseUrl: 'https://x', streams: [a], path: '/x' })).toEqual(['path: "path" belongs inside a stream when `streams` is given']);
    expect(issues({ baseUrl: 'https://x', stream: 'b', streams: [a, { ...b, parent: { stream: 'zz', key: 'id', as: 'id' } }] })).toEqual([
      'streams.1.parent.stream: no stream "zz"; streams are a, b',
    ]);
    const cyclic = [
      { name: 'a', path: '/a', parent: { stream: 'b', key: 'id', as: 'x' } },
      { name: 'b', path: '/b', parent: { stream: 'a', key: 'id', as: 'y' } },
    ];
    expect(issues({ baseUrl: 'https://x', stream: 'a', streams: cyclic })).toContain('streams.0.parent.stream: parent streams form a cycle through "a"');
  });

  it('binds placeholders from grandparents too', () => {
    const streams = [
      { name: 'orgs', path: '/orgs' },
      { name: 'repos', path: '/orgs/{org}/repos', parent: { stream: 'orgs', key: 'login', as: 'org' } },
      { name: 'issues', path: '/repos/{org}/{repo}/issues', parent: { stream: 'repos', key: 'name', as: 'repo' } },
    ];
    expect(issues({ baseUrl: 'https://x', stream: 'issues', streams })).toEqual([]);
  });
});
