/**
 * The shape of ferry.yaml and its included files (DESIGN.md, "Configuration").
 * Connector options are validated separately, against each connector's own
 * schema, once the connector is loaded; here they pass through untouched.
 */
import { z } from 'zod';
import { FIELD_TYPES, TARGET_TYPES } from '../sdk/types.js';
import { cronSchedule } from './cron.js';
import { notifyConfig } from './notify.js';

const NAME = /^[a-z0-9][a-z0-9_-]*$/;
export const syncName = z
  .string()
  .regex(NAME, 'must be lower-case letters, digits, "-" or "_", starting with a letter or digit');

export { TARGET_TYPES, type TargetType } from '../sdk/types.js';

/**
 * A mapping: each value is a JSONata expression (string), a nested mapping
 * (object), or a literal constant (number, boolean, null, list).
 */
export type MapSpec = { [field: string]: MapValue };
export type MapValue = string | number | boolean | null | readonly unknown[] | MapSpec;
export const mapValue: z.ZodType<MapValue> = z
  .lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), mapSpec]))
  .meta({ id: 'MapValue' });
// The id names the recursive definition in the JSON Schema (`ferry schema`).
export const mapSpec: z.ZodType<MapSpec> = z.record(z.string(), mapValue).meta({ id: 'MapSpec' });

export const fieldDeclaration = z.union([
  z.enum(FIELD_TYPES).transform((type) => ({ type, required: false as boolean, label: undefined as string | undefined })),
  z.strictObject({
    type: z.enum(FIELD_TYPES).describe('Field type of the object type\'s field.'),
    label: z.string().optional().describe('Label shown to people; default: the field name.'),
    required: z.boolean().default(false).describe('Rows without a value for this field are rejected.'),
  }),
]);
export type FieldDeclaration = z.output<typeof fieldDeclaration>;

const named = z.strictObject({
  name: z.string().min(1).max(255).describe('Stable name; the service-side object is found and updated by it.'),
  displayName: z.string().min(1).max(255).optional().describe('Name shown to people; default: name.'),
});

export const targetConfig = z.strictObject({
  type: z.enum(TARGET_TYPES).describe('Which import shape records are mapped to: conversation, message, row or document.'),
  /** The service-side source records are pushed under; upserted by name. */
  source: named.describe('The service-side source records are pushed under; created or updated by name.'),
  /** Rows only: the object type, upserted by name under the source. */
  objectType: named
    .extend({
      fields: z
        .record(z.string(), fieldDeclaration)
        .optional()
        .describe('Declared fields: a field type, or { type, label, required }. Inferred from the data when omitted.'),
    })
    .optional()
    .describe('Rows only: the object type, created or updated by name under the source.'),
  /** What to do with row fields the object type does not declare yet. */
  newFields: z
    .enum(['evolve', 'freeze', 'discard'])
    .default('evolve')
    .describe('Row fields the object type does not declare yet: evolve (add them), freeze (reject the record) or discard (drop the field).'),
  map: mapSpec
    .optional()
    .describe(
      'Target field → JSONata expression over the source record (a string), a nested mapping, or a literal constant (number, boolean, null, list). Optional when the source declares a default mapping for the target type (transcript, eml, maildir, slack-export): the keys written here replace the default\'s.',
    ),
});
export type TargetConfig = z.output<typeof targetConfig>;

export const sourceConfig = z
  .looseObject({
    type: z.string().min(1).describe('Connector: csv, jsonl, postgres, mysql, sqlite, http, or a plugin name.'),
  })
  .describe("Connector options; validated against the connector's own schema once it is loaded.");
export type SourceConfig = z.output<typeof sourceConfig>;

export const syncConfig = z
  .strictObject({
    name: syncName.describe('Unique name of the sync, used on the command line, in logs and in state.'),
    description: z.string().optional().describe('Free text for people reading the config; ferry does not use it.'),
    source: sourceConfig,
    incremental: z
      .strictObject({
        cursor: z.string().min(1).describe('Source field whose highest value read is kept as the cursor (a timestamp or a growing number).'),
        lag: z.number().nonnegative().optional().describe('Re-read this far below the stored cursor (seconds for timestamps, units for numbers).'),
      })
      .optional()
      .describe('Read only what changed since the last run, by a high-watermark cursor column.'),
    /** Fold many source records into one: the mapping then sees `{ key, records }`. */
    group: z
      .strictObject({
        by: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).describe('Field(s) whose value names the group a record belongs to.'),
        /** The source yields each group's records contiguously: stream groups instead of holding them to the end of the read. */
        sorted: z
          .boolean()
          .optional()
          .describe('The source is ordered by the group key: hand each group on as soon as the key changes (a key that comes back is an error).'),
      })
      .optional()
      .describe('Fold many source records (e.g. one per utterance) into one conversation; the mapping sees { key, records }.'),
    deletes: z
      .enum(['ignore', 'mirror'])
      .default('ignore')
      .describe('mirror: soft-delete records that vanished from a full read.'),
    /** `deletes: mirror` refuses to delete more than this share of known records unless forced. */
    maxDeletePercent: z
      .number()
      .min(0)
      .max(100)
      .default(20)
      .describe('deletes: mirror refuses to delete more than this percentage of known records unless forced.'),
    concurrency: z.number().int().min(1).max(256).optional().describe('Upper bound on requests in flight for this sync (overrides service.concurrency).'),
    maxRequestsPerSecond: z.number().positive().optional().describe('Upper bound on the request rate for this sync (overrides service.maxRequestsPerSecond).'),
    target: targetConfig.describe('Where records go: the import shape, the service-side source (and object type) and the mapping.'),
    schedule: cronSchedule.optional(),
    partitions: z
      .strictObject({ count: z.number().int().min(2).max(1024).describe('Slices: hash ranges of the primary key (tables) or of the file path (file globs).') })
      .optional()
      .describe('Cut the sync into slices that run as separate units (one queue job each), each with its own lock and cursor.'),
  })
  .superRefine(
    (sync, ctx) => {
      if (sync.partitions !== undefined) refusePartitionConflicts(sync, ctx);
      // Runs even when other keys of the sync failed (see `when`), so the
      // target may be any shape here: check before reading.
      const target: unknown = sync.target;
      if (typeof target !== 'object' || target === null) return;
      const { type, objectType } = target as { type?: unknown; objectType?: unknown };
      if (type === 'row' && objectType === undefined) {
        ctx.addIssue({ code: 'custom', path: ['target', 'objectType'], message: 'a row target needs objectType: { name }' });
      }
      const known = (TARGET_TYPES as readonly unknown[]).includes(type);
      if (known && type !== 'row' && objectType !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['target', 'objectType'], message: `objectType only applies to row targets, not ${String(type)}` });
      }
    },
    // Report this alongside the sync's other problems, not only once they are fixed.
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );
export type SyncConfig = z.output<typeof syncConfig>;

/**
 * `partitions:` with options whose result would depend on seeing every record
 * in one run: a slice cannot tell a record deleted from one read by another
 * slice, and a group's records may hash to different slices.
 */
function refusePartitionConflicts(sync: { deletes?: unknown; group?: unknown }, ctx: z.RefinementCtx): void {
  if (sync.deletes === 'mirror') {
    ctx.addIssue({
      code: 'custom',
      path: ['partitions'],
      message: 'partitions cannot be combined with deletes: mirror (no slice sees every record); remove partitions:, or run the deletes from an unpartitioned copy of the sync',
    });
  }
  if (sync.group !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['partitions'], message: "partitions cannot be combined with group: (a group's records may fall into different slices); remove one of them" });
  }
}

export const EXPORT_RESOURCES = ['conversations', 'messages', 'rows', 'documents', 'deals', 'accounts'] as const;

export const exportConfig = z.strictObject({
  name: syncName.describe('Unique name of the export.'),
  description: z.string().optional().describe('Free text for people reading the config; ferry does not use it.'),
  resource: z.enum(EXPORT_RESOURCES).describe('What to read from the service.'),
  filters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('Query filters passed to the list endpoint, e.g. { objectTypeId: … }.'),
  /** Fetch each item's detail (transcripts, bodies) as well as the list item. */
  details: z.boolean().default(false).describe("Also fetch each item's detail (transcripts, bodies)."),
  /** Export only what is newer than the last run, by a time field the resource's list endpoint can bound (docs/exports.md). */
  incremental: z
    .strictObject({
      cursor: z
        .string()
        .min(1)
        .optional()
        .describe(
          'Time field of the resource to export by (startTime, createdAt, lastActivityDate…). Without one (documents have none), changes: scan lists the whole resource every run and writes what changed.',
        ),
      changes: z
        .enum(['scan', 'new'])
        .default('scan')
        .describe(
          'scan (default): each run lists the resource (bounded by lastActivityDate for deals and accounts, in full otherwise) and writes the records that are new or changed since they were exported, by a fingerprint kept in state; new: only records past the watermark.',
        ),
    })
    .optional()
    .describe('Export only records newer than the last run, by a time field (e.g. startTime, createdAt, lastActivityDate).'),
  /** What a record deleted in the service becomes in a table destination (docs/exports.md). */
  deletes: z
    .enum(['ignore', 'mirror', 'soft'])
    .default('ignore')
    .describe(
      'mirror: after each run, delete from the destination the records the service no longer lists; soft: keep them, setting their _ferry_deleted_at; ignore: keep them as they are.',
    ),
  /** Column and table names (docs/exports.md#analyst-conventions); unset: snake_case for a new export, what its destination was created with for an existing one. */
  naming: z
    .enum(['snake_case', 'api'])
    .optional()
    .describe(
      'snake_case: column and table names in snake_case, typed tables (the default of a new export); api: the service\'s camelCase names, the layout of exports made before (the default of an export that ran before this option existed).',
    ),
  /** Load metadata (docs/exports.md#analyst-conventions). */
  metadata: z
    .boolean()
    .optional()
    .describe(
      'true: every row gets _ferry_loaded_at and _ferry_load_id, and database destinations a _ferry_loads table with each run\'s counts (the default of a new export); false: none (the default of an export that ran before this option existed).',
    ),
  /** Nested values as STRUCT and LIST columns (docs/exports.md#typed-tables). */
  nested: z
    .enum(['struct', 'json'])
    .optional()
    .describe(
      'struct: nested values whose shape the service\'s spec gives (participants, transcript, recipients, owner…) are STRUCT and LIST columns in duckdb and parquet, other nested values JSON (the default of a new export with naming: snake_case); json: every nested value is JSON (the default of an export whose layout was recorded before this option existed).',
    ),
  /** How the list is read (docs/exports.md#parallel-reads). */
  read: z
    .strictObject({
      slices: z
        .enum(['auto', 'off'])
        .default('auto')
        .describe('auto: read time windows of the list at once (service.concurrency requests in flight) where that is exact; off: one cursor chain.'),
      undated: z
        .enum(['include', 'exclude'])
        .default('include')
        .describe(
          'Records without the time field the list is sliced on (rows createdAt, deals lastActivityDate, accounts createdDate may be null): include keeps them, reading such a list as one chain on a full export; exclude lets it be sliced and may leave them out.',
        ),
    })
    .default({ slices: 'auto', undated: 'include' })
    .describe('How the list is read: time windows at once, and what happens to records without the time field.'),
  destination: sourceConfig,
  schedule: cronSchedule.optional(),
});
export type ExportConfig = z.output<typeof exportConfig>;


const serviceFields = z.strictObject({
  /** "embedded" starts the emulator in-process. */
  baseUrl: z
    .string()
    .min(1)
    // A base URL with /v1 would send /v1/v1/… and get a bare 404 for every record.
    .refine((url) => !/\/v1\/?$/i.test(url.trim()), { message: 'must not end in /v1: ferry adds /v1 to every path; give the service\'s root (https://api.example.com, not https://api.example.com/v1)' })
    .default('embedded')
    .describe('Base URL of the service without /v1 (ferry adds it), or "embedded" to start the emulator in-process.'),
  apiKey: z.string().optional().describe('API key (use ${FERRY_API_KEY}); not needed for the embedded emulator.'),
  concurrency: z
    .number()
    .int()
    .min(1)
    .max(256)
    .optional()
    .describe('Upper bound on requests in flight at once. Unset (the default): ferry finds how many the service serves without queueing, up to 256.'),
  maxRequestsPerSecond: z
    .number()
    .positive()
    .optional()
    .describe(
      'Upper bound on the request rate, for a contract to stay under. Unset (the default): ferry finds the rate the service accepts from its 429s and Retry-After, with no ceiling of its own.',
    ),
  timeoutMs: z.number().int().positive().default(30_000).describe('Timeout of one request, in milliseconds.'),
  maxAttempts: z.number().int().min(1).max(20).default(6).describe('Attempts per request, counting the first, for transient failures.'),
  outageBudgetSeconds: z
    .number()
    .min(0)
    .default(300)
    .describe('How long a run keeps retrying while the service fails every request (500s, refused connections) before it stops with exit 3; 0 stops after maxAttempts.'),
});
export const serviceConfig = serviceFields;
export type ServiceConfig = z.output<typeof serviceConfig>;

export const stateConfig = z.strictObject({
  url: z
    .string()
    .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'must be sqlite:<path> or postgres://…')
    .default('sqlite:state/ferry.db')
    .describe('Where incremental state lives: sqlite:<path> (relative to this file) or postgres://… for shared state.'),
  schema: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,40}$/, 'must be a plain identifier (letters, digits, underscores; at most 41 characters)')
    .optional()
    .describe('postgres:// state only: the schema holding ferry\'s tables (default ferry); the worker queue uses <schema>_queue.'),
});

export const emulatorConfig = z.strictObject({
  /** Where the embedded emulator keeps its data; ':memory:' for none. */
  db: z
    .string()
    .min(1)
    .default('state/emulator.db')
    .describe('SQLite file of the embedded emulator (relative to this file), or ":memory:".'),
  seed: z.string().optional().describe('File of native records to seed the emulator with (relative to this file), or `demo` for data generated from shared/datasets.'),
});

export const metricsConfig = z.strictObject({
  pushgateway: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Prometheus Pushgateway URL; `ferry run` pushes its metrics there when it ends (docs/metrics.md).'),
  job: z.string().min(1).default('ferry').describe('Job name the metrics are pushed under.'),
});
export type MetricsConfig = z.output<typeof metricsConfig>;

export const projectFile = z.strictObject({
  version: z.literal(1).default(1).describe('Version of the file format.'),
  service: serviceConfig.default(serviceConfig.parse({})).describe('How to reach the service.'),
  state: stateConfig.default(stateConfig.parse({})).describe('Where runtime state is kept.'),
  emulator: emulatorConfig.default(emulatorConfig.parse({})).describe('The embedded emulator (service.baseUrl: embedded).'),
  metrics: metricsConfig.default(metricsConfig.parse({})).describe('Where one-shot runs send their Prometheus metrics.'),
  notify: notifyConfig.default(notifyConfig.parse({})).describe('Alerts: webhooks sent when a run fails, rejects too much, or a sync stalls (docs/console.md#alerts).'),
  include: z
    .array(z.string().min(1))
    .default([])
    .describe('Files or globs (relative to this file) holding more syncs and exports.'),
  plugins: z.array(z.string().min(1)).default([]).describe('Connector plugins: npm package names or local paths.'),
  syncs: z.array(syncConfig).default([]).describe('Imports: source → mapping → service.'),
  exports: z.array(exportConfig).default([]).describe('Reverse exports: service → destination.'),
});
export type ProjectFile = z.output<typeof projectFile>;

/** An included file may only hold syncs and exports. */
export const includedFile = z.strictObject({
  syncs: z.array(syncConfig).default([]),
  exports: z.array(exportConfig).default([]),
});
