/** Who may call the console: its Host, the access token off loopback, and the CSRF header and Origin on actions. */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createGuard, isLoopback } from '../../../src/console/security.js';

const request = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as IncomingMessage;
const at = (path: string) => new URL(path, 'http://x.invalid');

describe('the console guard', () => {
  it('knows loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'].map(isLoopback)).toEqual([true, true, true, true, true]);
    expect(['0.0.0.0', '10.0.0.5', '::', 'example.com'].map(isLoopback)).toEqual([false, false, false, false]);
  });

  it('refuses a Host it does not listen as (DNS rebinding)', () => {
    const guard = createGuard(undefined);
    guard.allowHosts(['127.0.0.1:4310', 'localhost:4310']);
    expect(guard.refuse(request('GET', { host: '127.0.0.1:4310' }), at('/api/overview'))).toBeUndefined();
    expect(guard.refuse(request('GET', { host: 'evil.example:4310' }), at('/api/overview'))?.status).toBe(421);
  });

  it('lets an action through only with the CSRF header and no foreign Origin', () => {
    const guard = createGuard(undefined);
    guard.allowHosts(['127.0.0.1:4310']);
    const host = { host: '127.0.0.1:4310' };
    expect(guard.refuse(request('POST', host), at('/api/runs'))?.status).toBe(403);
    expect(guard.refuse(request('POST', { ...host, 'x-ferry-csrf': 'wrong' }), at('/api/runs'))?.status).toBe(403);
    expect(guard.refuse(request('POST', { ...host, 'x-ferry-csrf': guard.csrfToken }), at('/api/runs'))).toBeUndefined();
    expect(guard.refuse(request('POST', { ...host, 'x-ferry-csrf': guard.csrfToken, origin: 'http://127.0.0.1:4310' }), at('/api/runs'))).toBeUndefined();
    expect(guard.refuse(request('POST', { ...host, 'x-ferry-csrf': guard.csrfToken, origin: 'https://evil.example' }), at('/api/runs'))?.status).toBe(403);
    expect(guard.refuse(request('POST', { ...host, 'x-ferry-csrf': guard.csrfToken, origin: 'null' }), at('/api/runs'))?.status).toBe(403);
  });

  it('with an access token, refuses requests without it and takes it as bearer, cookie or ?access=', () => {
    const token = 'a'.repeat(32);
    const guard = createGuard(token);
    guard.allowHosts(['10.0.0.5:4310']);
    const host = { host: '10.0.0.5:4310' };
    expect(guard.refuse(request('GET', host), at('/api/overview'))?.status).toBe(401);
    expect(guard.refuse(request('GET', { ...host, authorization: `Bearer ${'b'.repeat(32)}` }), at('/'))?.status).toBe(401);
    expect(guard.refuse(request('GET', host), at(`/?access=${token}`))).toBeUndefined();
    expect(guard.refuse(request('GET', { ...host, cookie: `x=1; ferry_console=${token}` }), at('/api/overview'))).toBeUndefined();
    // A bearer token proves the caller is no cross-site page: it may act without the CSRF header.
    expect(guard.refuse(request('POST', { ...host, authorization: `Bearer ${token}` }), at('/api/runs'))).toBeUndefined();
    // Off loopback the machine is reached by any of its names: the token, not the Host, is the proof.
    expect(guard.refuse(request('GET', { host: 'ferry-box.internal:4310', authorization: `Bearer ${token}` }), at('/api/overview'))).toBeUndefined();
    expect(guard.refuse(request('POST', { host: 'ferry-box.internal:4310', cookie: `ferry_console=${token}`, 'x-ferry-csrf': guard.csrfToken, origin: 'http://ferry-box.internal:4310' }), at('/api/runs'))).toBeUndefined();
    expect(guard.refuse(request('POST', { host: 'ferry-box.internal:4310', cookie: `ferry_console=${token}`, 'x-ferry-csrf': guard.csrfToken, origin: 'http://evil.example' }), at('/api/runs'))?.status).toBe(403);
    // The cookie alone does not: a browser sends it along with a forged request.
    expect(guard.refuse(request('POST', { ...host, cookie: `ferry_console=${token}` }), at('/api/runs'))?.status).toBe(403);
  });
});
