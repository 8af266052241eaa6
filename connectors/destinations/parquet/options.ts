import { z } from 'zod';
import { shapeOption } from '../_export/shape.js';
import { identifier } from '../sqlite-table/options.js';

/** Options of the built-in `parquet` destination (everything under `destination:` except `type`). */
export const parquetOptions = z.strictObject({
  /** The folder that holds the datasets, relative to the YAML file; created when missing. @example ../state/exports/parquet */
  path: z.string().min(1),
  /** The dataset: a folder of Parquet files under `path` (with `shape: relational`, child datasets are named after it). */
  table: identifier,
  /** The field records are de-duplicated by within a run. @default the resource's id field */
  key: z.string().min(1).optional(),
  /** json: nested values as JSON text columns; relational: arrays of objects as child datasets, a row's fields as columns (docs/exports.md). @default json */
  shape: shapeOption,
  /** overwrite: each run replaces the dataset; append: each run adds its own files next to the earlier ones (for incremental exports). @default overwrite */
  mode: z.enum(['overwrite', 'append']).default('overwrite'),
  /** Hive-style folders by a timestamp field, e.g. `{ field: startTime, by: month }` → `month=2024-03/`. Child datasets are not partitioned. */
  partition: z.strictObject({ field: z.string().min(1), by: z.enum(['year', 'month', 'day']) }).optional(),
});

export type ParquetOptions = z.output<typeof parquetOptions>;
