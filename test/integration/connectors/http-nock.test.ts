/**
 * The http source against a mocked third-party API (GitHub-style issues:
 * token auth, Link-header pages, `since` for incremental reads) with nock,
 * which intercepts global fetch.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import http from '../../../connectors/sources/http/index.js';
import { readAll } from './http-fixture.js';

const API = 'https://api.github.example';
const issue = (n: number) => ({ number: n, title: `Issue ${n}`, updated_at: `2024-03-0${n}T10:00:00Z`, user: { login: `user${n}` } });

const options = {
  baseUrl: API,
  path: '/repos/acme/widgets/issues',
  headers: { 'X-GitHub-Api-Version': '2022-11-28' },
  params: { state: 'all', per_page: 2 },
  auth: { type: 'bearer' as const, token: 'ghp_secret_token' },
  primaryKey: 'number',
  pagination: { type: 'linkHeader' as const },
  incremental: { param: 'since', format: 'iso' as const },
};

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

describe('http source against a mocked third-party API (nock)', () => {
  it('follows Link headers with the token and stream headers on every page', async () => {
    const scope = nock(API, { reqheaders: { authorization: 'Bearer ghp_secret_token', 'x-github-api-version': '2022-11-28', accept: 'application/json' } })
      .get('/repos/acme/widgets/issues')
      .query({ state: 'all', per_page: '2' })
      .reply(200, [issue(1), issue(2)], { link: `<${API}/repositories/42/issues?state=all&per_page=2&page=2>; rel="next", <${API}/repositories/42/issues?state=all&per_page=2&page=2>; rel="last"` })
      .get('/repositories/42/issues')
      .query({ state: 'all', per_page: '2', page: '2' })
      .reply(200, [issue(3)], { link: `<${API}/repositories/42/issues?state=all&per_page=2&page=1>; rel="first"` });
    const records = await readAll(http, options);
    expect(records.map((r) => r.data.number)).toEqual([1, 2, 3]);
    expect(records[2]!.origin).toEqual({ stream: '/repos/acme/widgets/issues', url: `${API}/repositories/42/issues?state=all&per_page=2&page=2`, key: '3' });
    expect(scope.isDone()).toBe(true);
  });

  it('sends `since` from the stored cursor and keeps only newer issues', async () => {
    const scope = nock(API)
      .get('/repos/acme/widgets/issues')
      .query({ state: 'all', per_page: '2', since: '2024-03-02T10:00:00Z' })
      .reply(200, [issue(2), issue(4)]);
    const records = await readAll(http, options, { incremental: { cursorField: 'updated_at', after: { value: '2024-03-02T10:00:00Z', key: '2' } } });
    expect(records.map((r) => [r.data.number, r.cursor])).toEqual([[4, '2024-03-04T10:00:00Z']]);
    expect(scope.isDone()).toBe(true);
  });
});
