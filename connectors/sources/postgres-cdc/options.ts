import { z } from 'zod';
import { primaryKeyOption, sslOption } from '../_sql/options.js';

const identifier = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'lower-case letters, digits and _ (at most 63), starting with a letter or _');

/** Options of the built-in `postgres-cdc` source (everything under `source:` except `type`). */
export const postgresCdcOptions = z
  .strictObject({
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//i, 'url must start with postgres:// or postgresql://')
      .describe('Connection URL of a role with the REPLICATION attribute (or rds_replication); interpolate the password from the environment. Example: postgres://ferry:${PGPASSWORD}@db:5432/crm'),
    ssl: sslOption.describe('TLS: true, or { rejectUnauthorized, ca, cert, key }. URL parameters such as sslmode=require also work.'),
    schema: z.string().min(1).default('public').describe('The schema of the table(s). @default public'),
    table: z.string().min(1).optional().describe('The table to capture (or list several under tables:).'),
    tables: z.array(z.string().min(1)).min(1).optional().describe('Tables to capture into this one sync; their rows must map to distinct remote ids (put the table name into map.id when keys overlap).'),
    primaryKey: primaryKeyOption.describe("Column(s) identifying a row, the snapshot's chunk order and the key a delete carries. Default: each table's primary key."),
    slot: identifier.optional().describe("The logical replication slot; created (pgoutput) when missing. @default ferry_<sync name>"),
    publication: identifier
      .optional()
      .describe('The publication; created for the table(s) when missing (an existing one is used as it is and must include them). @default ferry_<sync name>'),
    snapshotChunkRows: z.number().int().positive().max(100_000).default(10_000).describe('Rows per key-ordered chunk of the initial snapshot; a killed snapshot resumes after the last landed chunk row. @default 10000'),
    onTruncate: z
      .enum(['fail', 'ignore'])
      .default('fail')
      .describe('A TRUNCATE of a captured table: fail stops the run (nothing after it is applied; take a new snapshot with --full-refresh), ignore logs it, counts it as skipped and goes on. @default fail'),
    lagWarnBytes: z
      .number()
      .int()
      .positive()
      .default(1024 ** 3)
      .describe('WAL the slot may hold back before ferry status, the run log and metrics warn. @default 1073741824 (1 GiB)'),
    statusIntervalMs: z.number().int().positive().max(60_000).default(10_000).describe('How often the stream tells the server how far it got (a heartbeat also at rest). @default 10000'),
  })
  .superRefine((options, ctx) => {
    if ((options.table === undefined) === (options.tables === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['table'], message: 'give either table: or tables:' });
    }
  });

export type PostgresCdcOptions = z.output<typeof postgresCdcOptions>;

/** The tables a sync captures, in snapshot order. */
export function tablesOf(options: PostgresCdcOptions): string[] {
  return options.tables ?? [options.table!];
}

/** The slot and publication names: configured, else derived from the sync's name. */
export function namesOf(options: PostgresCdcOptions, syncName: string): { slot: string; publication: string; derived: { slot: boolean; publication: boolean } } {
  const derived = `ferry_${syncName.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);
  return {
    slot: options.slot ?? derived,
    publication: options.publication ?? derived,
    derived: { slot: options.slot === undefined, publication: options.publication === undefined },
  };
}
