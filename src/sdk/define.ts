import type { z } from 'zod';
import {
  SDK_VERSION,
  type DestinationDefinition,
  type SourceDefinition,
} from './types.js';

type SourceSpec<Schema extends z.ZodType> = Omit<SourceDefinition<Schema>, 'kind' | 'sdkVersion'>;
type DestinationSpec<Schema extends z.ZodType> = Omit<DestinationDefinition<Schema>, 'kind' | 'sdkVersion'>;

/**
 * Declare a source connector. The options schema types `ctx.options` in
 * `discover()` and `read()`; ferry validates the user's YAML against it before
 * calling either.
 *
 * @example
 * export default defineSource({
 *   name: 'csv',
 *   options: z.object({ path: z.string() }),
 *   async discover(ctx) { return [{ name: ctx.options.path, fields: [] }]; },
 *   async *read(ctx) { yield { data: { id: '1' }, origin: { file: ctx.options.path, line: 2 } }; },
 * });
 */
export function defineSource<Schema extends z.ZodType>(spec: SourceSpec<Schema>): SourceDefinition<Schema> {
  return Object.freeze({ ...spec, kind: 'source' as const, sdkVersion: SDK_VERSION });
}

/**
 * Declare a destination connector (used by reverse exports). `open()` returns
 * a writer that receives batches of records and is flushed before state is
 * checkpointed.
 */
export function defineDestination<Schema extends z.ZodType>(
  spec: DestinationSpec<Schema>,
): DestinationDefinition<Schema> {
  return Object.freeze({ ...spec, kind: 'destination' as const, sdkVersion: SDK_VERSION });
}
