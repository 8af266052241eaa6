/**
 * What a service says of its own rate limit, when it says it: the IETF
 * draft's `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset` and
 * `RateLimit-Policy` (`100;w=60`), its structured forms (`RateLimit:
 * limit=100, remaining=0, reset=5` and `RateLimit: "default";r=0;t=5` with
 * `RateLimit-Policy: "default";q=100;w=60`), and the common `X-RateLimit-*`
 * headers (whose reset is often an epoch time in seconds). The request
 * control uses them at once instead of finding the limit from 429s.
 */
import type { AnswerHeaders } from '../wire.js';

/** A service's limit as its headers state it. */
export interface AnnouncedLimit {
  /** Requests allowed per window. */
  limit?: number;
  /** The window, seconds (the policy's `w`). */
  windowSeconds?: number;
  /** Requests left in the current window. */
  remaining?: number;
  /** Until the window resets, ms. */
  resetMs?: number;
}

/** A reset above this many seconds is an epoch time, not a delay (no window lasts 30 years). */
const EPOCH_SECONDS = 1e9;

/** True when the answer carries any rate-limit header (a few lookups: called for every answer). */
export function hasRateHeaders(headers: AnswerHeaders): boolean {
  return (
    headers['ratelimit-remaining'] !== undefined ||
    headers['x-ratelimit-remaining'] !== undefined ||
    headers.ratelimit !== undefined ||
    headers['ratelimit-policy'] !== undefined ||
    headers['ratelimit-limit'] !== undefined ||
    headers['x-ratelimit-limit'] !== undefined
  );
}

/** The limit a service's headers announce (empty when they say nothing usable). `now`: epoch ms, for an epoch reset. */
export function announcedLimit(headers: AnswerHeaders, now: number = Date.now()): AnnouncedLimit {
  const found: AnnouncedLimit = {};
  const structured = first(headers.ratelimit);
  if (structured !== undefined) {
    const params = parameters(structured);
    setNumber(found, 'limit', params.limit);
    setNumber(found, 'remaining', params.remaining ?? params.r);
    const reset = seconds(params.reset ?? params.t);
    if (reset !== undefined) found.resetMs = resetMs(reset, now);
  }
  const policy = first(headers['ratelimit-policy']);
  if (policy !== undefined) {
    const params = parameters(policy);
    setNumber(found, 'limit', params.q ?? params[''] ?? params.limit);
    setNumber(found, 'windowSeconds', params.w);
  }
  const limitHeader = first(headers['ratelimit-limit']) ?? first(headers['x-ratelimit-limit']);
  if (limitHeader !== undefined) {
    // `100` or the older draft's `100, 100;w=60`.
    const params = parameters(limitHeader);
    setNumber(found, 'limit', params['']);
    setNumber(found, 'windowSeconds', params.w);
  }
  const remaining = first(headers['ratelimit-remaining']) ?? first(headers['x-ratelimit-remaining']);
  if (remaining !== undefined) setNumber(found, 'remaining', remaining);
  const reset = seconds(first(headers['ratelimit-reset']) ?? first(headers['x-ratelimit-reset']));
  if (reset !== undefined) found.resetMs = resetMs(reset, now);
  return found;
}

/**
 * The rate a limit allows, requests per second, when both the limit and its
 * window are known; undefined otherwise (a limit without a window says no rate).
 */
export function announcedRate(limit: AnnouncedLimit): number | undefined {
  if (limit.limit === undefined || limit.windowSeconds === undefined || !(limit.windowSeconds > 0) || !(limit.limit > 0)) return undefined;
  return limit.limit / limit.windowSeconds;
}

function resetMs(value: number, now: number): number {
  return value > EPOCH_SECONDS ? Math.max(0, value * 1000 - now) : value * 1000;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function seconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.trim());
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

function setNumber(target: AnnouncedLimit, key: keyof AnnouncedLimit, text: string | undefined): void {
  if (target[key] !== undefined || text === undefined) return;
  const value = Number(text.trim());
  if (Number.isFinite(value) && value >= 0) target[key] = value;
}

/**
 * `key=value` pairs of a header, separated by `,` or `;` (the first list
 * member only, where `,` separates members of a policy list); a bare number
 * is kept under `''`, a quoted name is skipped.
 */
function parameters(text: string): Record<string, string> {
  const params: Record<string, string> = {};
  // A structured list of policies: only the first is read (`"default";q=100;w=60, "burst";q=10;w=1`).
  const firstMember = /^\s*"/.test(text) ? text.split(',')[0]! : text;
  for (const part of firstMember.split(/[;,]/)) {
    const item = part.trim();
    if (item === '' || item.startsWith('"')) continue;
    const equals = item.indexOf('=');
    if (equals < 0) {
      params[''] ??= item;
      continue;
    }
    const key = item.slice(0, equals).trim().toLowerCase();
    params[key] ??= item.slice(equals + 1).trim().replace(/^"|"$/g, '');
  }
  return params;
}
