import { z } from 'zod';
import { refineSqlRead, sqlReadShape, sslOption } from '../_sql/options.js';

/** Options of the built-in `postgres` source (everything under `source:` except `type`). */
export const postgresOptions = z
  .strictObject({
    url: z.string().regex(/^postgres(ql)?:\/\//i, 'url must start with postgres:// or postgresql://').describe('Connection URL; interpolate the password from the environment. Example: postgres://ferry:${PGPASSWORD}.@db.internal:5432/crm'),
    ssl: sslOption.describe('TLS: true, or { rejectUnauthorized, ca, cert, key }. URL parameters such as sslmode=require also work.'),
    ...sqlReadShape,
  })
  .superRefine(refineSqlRead);

export type PostgresOptions = z.output<typeof postgresOptions>;
