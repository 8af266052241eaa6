/**
 * Where both stores keep {@link ServiceLimits}: one row of their `meta` table
 * per service, keyed `service-limits <base URL>`, the value JSON. No
 * migration: `meta` is there in every schema version, and an older ferry
 * reading the file ignores keys it does not know.
 */
import type { ServiceLimits } from './types.js';

/** The prefix of the keys; the service's base URL follows it. */
export const SERVICE_LIMITS_KEY = 'service-limits ';

/** The `meta` key of a service's limits. */
export function serviceLimitsKey(service: string): string {
  return SERVICE_LIMITS_KEY + service;
}

/** A stored value, or undefined for one that does not parse (written by a later ferry, or damaged): it is only a starting point. */
export function parseServiceLimits(text: string): ServiceLimits | undefined {
  try {
    const value = JSON.parse(text) as Partial<ServiceLimits>;
    if (typeof value.service !== 'string' || typeof value.concurrency !== 'number' || !(value.concurrency >= 1)) return undefined;
    if (value.rate !== undefined && !(typeof value.rate === 'number' && value.rate > 0)) return undefined;
    return value as ServiceLimits;
  } catch {
    return undefined;
  }
}
