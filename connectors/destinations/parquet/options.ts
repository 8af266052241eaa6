import { z } from 'zod';
import { shapeOption } from '../_export/shape.js';
import { identifier } from '../sqlite-table/options.js';

/** Options of the built-in `parquet` destination (everything under `destination:` except `type`). */
export const parquetOptions = z.strictObject({
  path: z.string().min(1).describe('The folder that holds the datasets, relative to the YAML file; created when missing. Example: ../state/exports/parquet.'),
  table: identifier.describe('The dataset: a folder of Parquet files under `path` (with `shape: relational`, child datasets are named after it).'),
  key: z.string().min(1).optional().describe('The field records are de-duplicated by within a run.'),
  shape: shapeOption.describe('json: nested values as JSON text columns; relational: arrays of objects as child datasets, a row\'s fields as columns (docs/exports.md).'),
  mode: z.enum(['overwrite', 'append']).default('overwrite').describe('overwrite: each run replaces the dataset; append: each run adds its own files next to the earlier ones (for incremental exports).'),
  partition: z.strictObject({ field: z.string().min(1).describe('The timestamp field to partition by. Example: startTime.'), by: z.enum(['year', 'month', 'day']).describe('One folder per year, month or day.') }).optional().describe('Hive-style folders by a timestamp field, e.g. `{ field: startTime, by: month }` → `month=2024-03/`. Child datasets are not partitioned.'),
});

export type ParquetOptions = z.output<typeof parquetOptions>;
