/**
 * The incremental request parameter: the stored cursor (lowered by `lag`),
 * written the way the API expects it.
 */
import { FerryError, type IncrementalRead } from '../../../src/sdk/index.js';
import type { IncrementalOption } from './options.js';

const NUMERIC = /^[+-]?\d+(?:\.\d+)?$/;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** The value to send, or undefined when there is nothing to send (no stored cursor and no `start`). */
export function incrementalParam(option: IncrementalOption, incremental: IncrementalRead | undefined): string | undefined {
  const after = incremental?.after?.value;
  if (after === undefined) return option.start === undefined ? undefined : format(option.start, option.format);
  const lag = incremental?.lag;
  return format(lag ? lower(after, lag) : after, option.format);
}

/** Numbers (and numeric text) below ~1e11 are Unix seconds, above it Unix milliseconds. */
function instantMs(value: string | number): number {
  if (typeof value === 'number' || NUMERIC.test(value)) {
    const n = Number(value);
    return Math.abs(n) < 1e11 ? n * 1000 : n;
  }
  return Date.parse(/^\d{4}-\d{2}-\d{2} /.test(value) ? value.replace(' ', 'T') : value);
}

function format(value: string | number, style: IncrementalOption['format']): string {
  if (style === 'raw') return String(value);
  // Already ISO 8601 with a zone: sent as is, keeping sub-millisecond digits.
  if (style === 'iso' && typeof value === 'string' && ISO_WITH_ZONE.test(value)) return value;
  const ms = instantMs(value);
  if (Number.isNaN(ms)) {
    throw new FerryError('FERRY_SOURCE_READ_FAILED', `the cursor value "${value}" is not a timestamp, so it cannot be sent as ${style}`, {
      hint: 'use incremental.format: raw, or a cursor field holding timestamps',
    });
  }
  if (style === 'iso') return new Date(ms).toISOString();
  return String(style === 'unix' ? Math.floor(ms / 1000) : Math.floor(ms));
}

/** The cursor moved back by `lag`: seconds for timestamps, units for numbers. */
function lower(value: string | number, lag: number): string | number {
  if (typeof value === 'number') return value - lag;
  if (NUMERIC.test(value)) return Number(value) - lag;
  const ms = instantMs(value);
  return Number.isNaN(ms) ? value : new Date(ms - lag * 1000).toISOString();
}
