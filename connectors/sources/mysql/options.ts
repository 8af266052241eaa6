import { z } from 'zod';
import { refineSqlRead, sqlReadShape, sslOption } from '../_sql/options.js';

/** Options of the built-in `mysql` source (MySQL and MariaDB). */
export const mysqlOptions = z
  .strictObject({
    url: z.string().regex(/^(mysql|mariadb):\/\//i, 'url must start with mysql:// or mariadb://').describe('Connection URL; interpolate the password from the environment. Example: mysql://ferry:${MYSQL_PASSWORD}.@db.internal:3306/crm'),
    ssl: sslOption.describe('TLS: true, or { rejectUnauthorized, ca, cert, key }.'),
    ...sqlReadShape,
  })
  .superRefine(refineSqlRead);

export type MysqlOptions = z.output<typeof mysqlOptions>;
