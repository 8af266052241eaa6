import type { z } from 'zod';

/** The SDK contract version. A plugin built for another major version is refused at load. */
export const SDK_VERSION = 1;

/**
 * The service's field types for rows (object-type field definitions). The API
 * schemas in `src/api` build their enum from this list, so it is the one place
 * the set is written down.
 */
export const FIELD_TYPES = ['textarea', 'string', 'boolean', 'int', 'double', 'datetime', 'date', 'list'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * The service's four import shapes, the `target.type` a sync maps to. The
 * config schema builds its enum from this list.
 */
export const TARGET_TYPES = ['conversation', 'message', 'row', 'document'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/**
 * A mapping as `target.map` holds it: each value a JSONata expression over
 * the source record (a string), a nested mapping, or a literal constant.
 */
export type DefaultMapValue = string | number | boolean | null | readonly unknown[] | DefaultMap;
export type DefaultMap = { readonly [field: string]: DefaultMapValue };

/**
 * What a source proposes for one target type, so a sync that writes only
 * `target: { type: conversation }` works with no `map:` at all. The user's
 * `map:` is laid over `map` key by key (a key the user writes replaces the
 * default's whole value for it), and the user's `group:` replaces `group`.
 * See {@link SourceDefinition.targetDefaults}.
 */
export interface TargetDefaults {
  /** Target field → expression, exactly as a user would write `map:`. */
  readonly map: DefaultMap;
  /**
   * Fold records into one body, as `group:` does (the map then sees
   * `{ key, records }`): a chat source whose records are messages can make
   * each channel-day one conversation.
   */
  readonly group?: { readonly by: string | readonly string[]; readonly sorted?: boolean };
}

/** A JSON-like value a connector may emit. Bigints and Buffers are allowed and converted by the mapper. */
export type SourceValue =
  | string
  | number
  | boolean
  | null
  | bigint
  | Date
  | Uint8Array
  | readonly SourceValue[]
  | { readonly [key: string]: SourceValue | undefined };

/** One source record's fields. */
export type SourceData = { readonly [key: string]: SourceValue | undefined };

/**
 * Where a record came from, for error messages and the dead-letter:
 * a file and line, a table and key, or a URL.
 */
export interface RecordOrigin {
  /** Stream (file glob, table, endpoint) the record belongs to. */
  stream?: string;
  file?: string;
  line?: number;
  table?: string;
  /**
   * Primary-key values, as text. When `map.id` is the stream's one
   * primary-key field, ferry also takes it as the record's remote id to look
   * the record up before reading its data (a wrong guess only costs a
   * mapping: the look-up then finds nothing).
   */
  key?: string;
  url?: string;
}

/**
 * A cursor position at full precision. `value` is kept as text or a JSON number
 * exactly as the source gave it (timestamps with microseconds and zone,
 * numerics as strings); `key` breaks ties between records sharing a value.
 */
export interface CursorPosition {
  value: string | number;
  key?: string;
}

/** A record as a source yields it. */
export interface SourceRecord<T extends SourceData = SourceData> {
  /**
   * The record's fields. May be a getter that works them out when first
   * read (parsing `dataText`, say): ferry reads `data` only when it maps the
   * record, so a re-run that finds the record unchanged by its `dataText`
   * (and, when `map.id` is the one primary-key field, its `origin.key`)
   * never reads it.
   */
  data: T;
  origin: RecordOrigin;
  /** The record's cursor value when the sync is incremental. */
  cursor?: string | number | null;
  /**
   * Optional: text the record's `data` follows from entirely, which the
   * source has at hand anyway (a file's header and the row's values, a
   * message's bytes). On a re-run ferry hashes it, instead of serialising
   * `data`, to tell an unchanged record before mapping it.
   *
   * The rule: within one sync, two records whose `dataText` are equal must
   * have equal `data`, under the same connector options and the same
   * connector code. ferry adds the options and its own version to the hash;
   * a plugin that changes how it derives `data` from the same input must
   * change the text too (prefix it with a version of the derivation). Leave
   * it out when unsure: ferry then hashes `data` itself, which is always
   * exact.
   *
   * @example `${headerDigest}${JSON.stringify(values)}` (the built-in csv source)
   */
  dataText?: string;
  /**
   * What the record does to the record it identifies, for a source that
   * reads changes ({@link SourceDefinition.changes}). `upsert` (the
   * default): create it or replace it with `data`. `delete`: it is gone at
   * the source; ferry deletes it in the service (its remote id comes from
   * mapping `data`, so a delete must carry at least the fields `map.id`
   * reads, typically the primary key). Other sources leave it out.
   */
  op?: RecordOp;
  /**
   * For a source that reads changes: an opaque token saying where to
   * resume once this record and every record before it have landed (an
   * LSN, a binlog position, a page token). ferry stores the token of the
   * longest landed prefix of the read with the ledger, in one transaction,
   * hands it back as {@link ReadContext.resumeFrom} on the next run, and
   * announces it through {@link ReadContext.onCheckpoint}.
   */
  checkpoint?: string;
}

/** See {@link SourceRecord.op}. */
export type RecordOp = 'upsert' | 'delete';

/**
 * How far what a source has handed over (and ferry stored) trails what the
 * source holds: a replication slot's retained WAL, a consumer group's lag.
 * See {@link ReadContext.reportLag} and {@link SourceDefinition.lag}.
 */
export interface SourceLag {
  /** Bytes the source holds back for ferry (WAL a slot retains). */
  bytes?: number;
  /** Seconds since the oldest change not yet confirmed was made (0 when caught up). */
  seconds?: number;
  /** Set when the lag is above the source's warning threshold: what is wrong and what to do. */
  warning?: string;
  /** Other facts worth showing in `ferry status` (`slot: ferry_deals, active: true`). */
  details?: Record<string, string | number | boolean>;
}

/** A field of a discovered stream, with the object-type field type it maps to. */
export interface DiscoveredField {
  name: string;
  type: FieldType;
  /** The source's own type name (e.g. `timestamptz`, `VARCHAR(20)`), for display. */
  sourceType?: string;
  nullable?: boolean;
}

/** A stream (file set, table, endpoint) a source can read. */
export interface DiscoveredStream {
  name: string;
  fields: DiscoveredField[];
  primaryKey?: string[];
  /** Fields suitable as an incremental cursor. */
  cursorCandidates?: string[];
  /** Records in the stream when cheaply known, for progress ETA. */
  estimatedCount?: number;
}

/** A minimal structured logger (pino-compatible). */
export interface ConnectorLogger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** Incremental settings the runner hands a source. */
export interface IncrementalRead {
  /** The field whose value orders records and forms the high-watermark. */
  cursorField: string;
  /** Last acknowledged position; absent on a first or full-refresh run. */
  after?: CursorPosition;
  /** Re-read a window below `after` (seconds for timestamps, units for numbers). */
  lag?: number;
}

/** What every connector call receives. */
export interface ConnectorContext<Options> {
  /** The connector's options, parsed and validated by its zod schema. */
  options: Options;
  /** Directory of the YAML file that declared the connector; relative paths resolve against it. */
  baseDir: string;
  /** Name of the sync (or export) using the connector. */
  syncName: string;
  logger: ConnectorLogger;
  signal: AbortSignal;
}

/**
 * One slice of a partitioned sync (`partitions: { count }` in ferry.yaml).
 * Slices never overlap and together hold every record: a source given a
 * partition yields only the records whose bucket is `index`, where the
 * bucket is a stable hash of the record's identity modulo `count` (database
 * tables: the primary key, computed by the database; file sources: the
 * file's path relative to the config, so each file goes wholly to one slice).
 * The hash must not depend on anything that changes between runs, since each
 * slice keeps its own cursor.
 */
export interface ReadPartition {
  /** This slice, from 0 to `count - 1`. */
  index: number;
  /** How many slices the sync is cut into (at least 2). */
  count: number;
}

/**
 * Input a source read but did not yield as written: a line it dropped, or a
 * row it kept after changing it. See {@link ReadContext.reportSkipped}.
 */
export interface SkippedInput {
  /** `skipped`: nothing was yielded for it; `repaired`: a record was yielded with changed content. */
  action: 'skipped' | 'repaired';
  /** Where the input was (file and line, table and key, URL). */
  origin: RecordOrigin;
  /** What was wrong, in a few words: `invalid JSON (Unexpected token , …)`. */
  reason: string;
}

/** What `read()` receives. */
export interface ReadContext<Options> extends ConnectorContext<Options> {
  /** Present when the sync is incremental. */
  incremental?: IncrementalRead;
  /** Primary-key fields declared on the sync, if any. */
  primaryKey?: string[];
  /**
   * Present when the sync is partitioned: read only this slice (see
   * {@link ReadPartition}). A source that cannot partition must throw a
   * `FERRY_CONFIG_INVALID` error rather than read everything, since every
   * slice reading all records would push each record `count` times.
   */
  partition?: ReadPartition;
  /**
   * Report input that did not become a record as written: a malformed line
   * skipped on request (`onInvalidLine: skip`), a ragged row repaired, bytes
   * that were not valid in the file's encoding and were replaced. Nothing may
   * change data silently, so call it once for each such line or row. ferry
   * counts a `skipped` report as `skipped` and a `repaired` one (its record
   * is read, and counted as such) as `repaired` in the run summary,
   * `ferry status` and `--json`; it does not log them, so warn about each yourself, once
   * (several hundred identical warnings help nobody: warn about the first
   * few one by one and then give a total). Absent outside a run, e.g. when a
   * test calls `read()` directly: call it as `ctx.reportSkipped?.(…)`.
   */
  reportSkipped?: (input: SkippedInput) => void;
  /**
   * A source that reads changes: the {@link SourceRecord.checkpoint} token
   * stored by the last run, to resume after; absent on a first run and with
   * `--full-refresh` (start over: take a new snapshot).
   */
  resumeFrom?: string;
  /**
   * True under `ferry run --follow`: a source that can wait for new records
   * ({@link SourceDefinition.follows}) keeps reading until `signal` aborts;
   * otherwise it ends once it has handed over what was there when the read
   * began.
   */
  follow?: boolean;
  /**
   * Subscribe to checkpoints: the listener is called with the token of the
   * last record of the landed prefix each time ferry has stored it (after
   * its transaction committed), and a last time with `final` true once the
   * run's final checkpoint is written or could not be (the token is then
   * the last one stored, undefined when none was). Only a stored token may
   * be confirmed upstream (an LSN, an offset): the changes up to it landed.
   * The final call comes after `read()`'s iterator ended or was closed, so
   * a source keeps what it confirms with (a connection) until then; ferry
   * awaits the promise it returns.
   */
  onCheckpoint?: (listener: (checkpoint: string | undefined, final: boolean) => void | Promise<void>) => void;
  /** Report the source's lag as it changes (metrics and the run's log show it). */
  reportLag?: (lag: SourceLag) => void;
}

/**
 * The keys of the stream a source reads, declared as attributes of the
 * stream (as dlt resources declare `primary_key` and Singer streams
 * `key_properties` / `replication_key`) rather than found by the runner in
 * the connector's options.
 */
export interface StreamKeys {
  /**
   * Fields that identify a record. The runner breaks ties between equal
   * cursor values with them and hands them back in {@link ReadContext.primaryKey};
   * without them a record is identified by `origin.key`.
   */
  primaryKey?: readonly string[];
  /** The field that orders an incremental read, when the stream has a natural one (shown by `ferry discover`). */
  cursorField?: string;
}

/** A source connector's definition, as returned by {@link defineSource}. */
export interface SourceDefinition<Schema extends z.ZodType = z.ZodType> {
  readonly kind: 'source';
  readonly sdkVersion: number;
  /** The `type:` users write in YAML. */
  readonly name: string;
  /** zod schema of the connector's own options (everything under `source:` except `type`). */
  readonly options: Schema;
  /** An example options object, used by docs and the conformance kit. */
  readonly example?: z.input<Schema>;
  /**
   * Check the source can be reached (used by `ferry check`); throw when it
   * cannot be used. It may return notes for the user (a setting that works
   * but costs something), which `ferry check` prints under the source.
   */
  check?(ctx: ConnectorContext<z.output<Schema>>): Promise<void | string[]>;
  /**
   * The keys of the stream `read()` yields with these options, known without
   * I/O (typically the user's `primaryKey` option). Omit it when records are
   * identified by `origin.key`.
   */
  keys?(options: z.output<Schema>): StreamKeys;
  /** The streams, fields and inferred field types. */
  discover(ctx: ConnectorContext<z.output<Schema>>): Promise<DiscoveredStream[]>;
  /**
   * Default mappings per target type, worked out from the options without
   * I/O: a source whose records have a natural shape (a transcript, an
   * e-mail, a chat message) declares how they become a ConversationRequest
   * or a MessageRequest, and a sync then needs no `map:`. Target types left
   * out have no default (the sync must write `map:`). `ferry preview` shows
   * the bodies the defaults give; docs/connectors.md lists each built-in
   * source's defaults.
   *
   * @example
   * targetDefaults: () => ({
   *   message: { map: { id: 'messageId', body: 'body', createdAt: 'date', sender: 'from', recipients: 'to', public: true } },
   * })
   */
  targetDefaults?(options: z.output<Schema>): Partial<Record<TargetType, TargetDefaults>>;
  /**
   * True when `read()` honours {@link ReadContext.partition}. ferry refuses
   * `partitions:` on a sync whose source does not declare it.
   */
  readonly partitionable?: boolean;
  /**
   * True when `read()` yields changes rather than a full or incremental
   * read: the same record may come more than once (a later one supersedes
   * it), deletions come as `op: 'delete'`, and every record carries a
   * {@link SourceRecord.checkpoint}. ferry then applies records of one
   * identity in read order, stores the checkpoint token instead of a
   * cursor, and refuses `incremental:`, `deletes: mirror`, `group:` and
   * `partitions:` on the sync.
   */
  readonly changes?: boolean;
  /** True when `read()` honours {@link ReadContext.follow} (`ferry run --follow`). */
  readonly follows?: boolean;
  /** The source's lag now, for `ferry status` (a replication slot's retained WAL); undefined when it has none to report. */
  lag?(ctx: ConnectorContext<z.output<Schema>> & { resumeFrom?: string }): Promise<SourceLag | undefined>;
  /**
   * `ferry state reset`: release what the source created upstream for this
   * sync (a replication slot, a publication), after the user confirmed.
   * Returns one line per thing released, for the command to print.
   */
  reset?(ctx: ConnectorContext<z.output<Schema>>): Promise<string[]>;
  /**
   * Records in source order; with `incremental`, ordered by cursor then key,
   * starting after `after`. Its iterator may also offer
   * {@link BufferedIterator.takeBuffered}, a way to hand over records it
   * already holds without a promise each.
   */
  read(ctx: ReadContext<z.output<Schema>>): AsyncIterable<SourceRecord>;
}

/**
 * An async iterator that may also hand over, synchronously, what it already
 * holds. ferry calls `next()` on a source's iterator per record otherwise,
 * and every call costs promises and a trip through the microtask queue: on a
 * re-run where every record is unchanged that is a large part of the run.
 */
export interface BufferedIterator<T> extends AsyncIterator<T> {
  /**
   * Optional: up to `max` of the items the iterator already holds (rows a
   * parser has buffered, the rest of a fetched page), taken without waiting
   * for anything; possibly none. Implement it when items arrive in buffers
   * (a file parser, a paged API, a database cursor fetching many rows); an
   * async generator cannot offer it, a hand-written iterator can.
   *
   * The contract:
   * - The items are exactly those `next()` would have given, in the same
   *   order: a caller may interleave both freely, and every item comes out
   *   once, through one or the other.
   * - It never blocks and never starts I/O it waits for: when nothing is at
   *   hand it returns an empty array, and the caller then awaits `next()`
   *   (which also reports the end of the items).
   * - It is called only while no `next()` is pending.
   * - A failure is thrown from it (as `next()` would reject with it),
   *   preferably only once the items before the failure were handed over:
   *   items taken and not returned are lost to the caller.
   */
  takeBuffered?(max: number): T[];
}

/** A batch a destination receives during a reverse export. */
export interface DestinationBatch {
  stream: string;
  records: Record<string, unknown>[];
  /**
   * The field that identifies a record of this stream (the resource's id, e.g.
   * `conversationId`). Destinations that upsert key on it unless their options
   * name another.
   */
  key?: string;
  /**
   * How the export lays out its tables (docs/exports.md#analyst-conventions);
   * absent for the layout before it (API names, no metadata). Records arrive
   * already renamed and carrying the metadata columns; a destination uses it
   * to type columns from the data's shape, give tables a primary key and
   * child rows a key of their own, and split rows per object type.
   */
  conventions?: ExportConventions;
  /**
   * Under the layout's `nested: struct`: the types of the record's nested
   * fields whose shape the service's spec gives (a conversation's
   * `participants`, a deal's `owner`), by column name. A destination with
   * nested types (DuckDB, Parquet) makes them STRUCT and LIST columns; others
   * keep JSON. Fields not named here (free-form maps: `summary`, a row's
   * `fields`, custom fields) are JSON.
   */
  nestedTypes?: Readonly<Record<string, NestedType>>;
}

/**
 * The type of a value whose shape is known: a scalar kind, an object with
 * known fields (`struct`, keyed by the destination's names of them) or an
 * array of one type (`list`). `json` is a value of any shape.
 */
export type NestedType = 'boolean' | 'integer' | 'number' | 'text' | 'json' | { readonly struct: Readonly<Record<string, NestedType>> } | { readonly list: NestedType };

/** The layout an export writes in (recorded in state at its first run, so an existing destination keeps its own). */
export interface ExportConventions {
  /** `snake_case`: every name ferry makes into a column or table is snake_case, with typed tables; `api`: the service's names, as before. */
  naming: 'snake_case' | 'api';
  /** Records carry `_ferry_loaded_at` and `_ferry_load_id`; database destinations keep a `_ferry_loads` table. */
  metadata: boolean;
  /**
   * `struct`: nested values whose shape the service's spec gives are STRUCT
   * and LIST columns where the destination has them (DuckDB, Parquet);
   * `json` (and absent: layouts recorded before it): JSON everywhere.
   */
  nested?: 'struct' | 'json';
}

/** One completed run of an export, for a destination's `_ferry_loads` table. */
export interface ExportLoad {
  /** The run's id: the `_ferry_load_id` of the rows it wrote. */
  loadId: string;
  export: string;
  resource: string;
  /** ISO timestamps. */
  startedAt: string;
  finishedAt: string;
  /** Records read from the service, written, skipped, (soft-)deleted. */
  read: number;
  written: number;
  skipped: number;
  deleted: number;
  /** With `incremental: { changes: scan }`: of the records read, those new to the destination, changed since exported, and not written because unchanged. */
  inserted?: number;
  updated?: number;
  unchanged?: number;
}

/**
 * The keys the service lists, for `deletes: mirror`: possibly millions, so
 * ferry may hold them partly in a temporary file. Iterate them once, loading
 * them in chunks of your own (a `Set<string>` fits this shape too, for
 * tests). A key may come more than once.
 */
export interface LiveKeys extends Iterable<string> {
  /** How many there are (counting a key that comes twice twice). */
  readonly size: number;
}

/** The records a destination keeps under `deletes: mirror`: those whose key is listed. */
export interface RetainRequest {
  stream: string;
  /** The key column (the resource's id field, or the destination's `key` option applied by the destination). */
  key: string;
  /** Every key the service lists, as text. Load them in bounded chunks, never as one array. */
  keys: LiveKeys;
  /**
   * `delete` (`deletes: mirror`): remove the other records and their child
   * rows. `soft` (`deletes: soft`): keep them, setting `_ferry_deleted_at` to
   * `deletedAt` where it is still null. @default 'delete'
   */
  mode?: 'delete' | 'soft';
  /** The ISO time a soft delete records. */
  deletedAt?: string;
  /** The run's load id (`_ferry_load_id`), for a destination that records a soft delete as a row of its own (an append-only dataset). */
  loadId?: string;
}

/** An open destination writer. */
export interface DestinationWriter {
  write(batch: DestinationBatch): Promise<void>;
  /** Make everything written durable; called before state is checkpointed. */
  flush?(): Promise<void>;
  /** The export completed: commit what was written (e.g. rename a temporary file into place). */
  close(): Promise<void>;
  /**
   * `deletes: mirror`: delete the stream's records whose key is not in
   * `keys` (every key the service lists for the export's filters), with
   * their child rows, before `close()`. Returns how many records went.
   * Destinations without it cannot mirror deletions.
   */
  retain?(request: RetainRequest): Promise<number>;
  /**
   * The `mode`s `retain` can apply, when not both: an append-only dataset,
   * whose files are never rewritten, can mark a record deleted with a newer
   * copy of it (`soft`) but cannot remove it (`delete`). Checked before the
   * export reads anything.
   */
  retainModes?: readonly ('delete' | 'soft')[];
  /**
   * The export completed and its conventions ask for load metadata: note the
   * run in the destination's `_ferry_loads` table, before `close()`.
   */
  recordLoad?(load: ExportLoad): Promise<void>;
  /**
   * The export failed or was stopped: release resources and discard what the
   * destination has not committed, where it can (a file being overwritten
   * keeps its old content). `close()` is not called after `abort()`; a writer
   * without `abort` is closed instead.
   */
  abort?(reason: unknown): Promise<void>;
}

/** A destination connector's definition, as returned by {@link defineDestination}. */
export interface DestinationDefinition<Schema extends z.ZodType = z.ZodType> {
  readonly kind: 'destination';
  readonly sdkVersion: number;
  readonly name: string;
  readonly options: Schema;
  readonly example?: z.input<Schema>;
  /**
   * Records per `write()` the destination loads best with (bulk loaders
   * amortise a transaction over thousands of rows). The export's own batch
   * size, when set, wins. @default 500
   */
  readonly batchSize?: number;
  check?(ctx: ConnectorContext<z.output<Schema>>): Promise<void>;
  open(ctx: ConnectorContext<z.output<Schema>>): Promise<DestinationWriter>;
}

export type ConnectorDefinition = SourceDefinition | DestinationDefinition;
