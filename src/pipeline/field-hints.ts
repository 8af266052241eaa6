/**
 * Field-type hints for inferring an object type: when a row field is mapped
 * from a bare source column (`amount: amount`), the type the source's
 * discover() reports for that column is a better guess than sampled values.
 */
import type { Logger } from 'pino';
import type { FieldType } from '../sdk/types.js';
import { discoverStreams } from './prepare.js';
import type { PreparedSync } from './prepare.js';

const BARE_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export async function fieldHints(prepared: PreparedSync, logger: Logger): Promise<Map<string, FieldType>> {
  const hints = new Map<string, FieldType>();
  const fields = prepared.sync.target.map.fields;
  if (!fields || typeof fields !== 'object' || Array.isArray(fields)) return hints;
  let discovered: Map<string, FieldType>;
  try {
    const streams = await discoverStreams(prepared, logger);
    discovered = new Map(streams.flatMap((s) => s.fields.map((f) => [f.name, f.type] as const)));
  } catch (error) {
    // Hints are an optimisation; sampled values still give types.
    logger.debug({ err: error }, 'discover() failed; inferring field types from data only');
    return hints;
  }
  for (const [target, expression] of Object.entries(fields)) {
    if (typeof expression !== 'string' || !BARE_NAME.test(expression)) continue;
    const type = discovered.get(expression);
    if (type) hints.set(target, type);
  }
  return hints;
}
