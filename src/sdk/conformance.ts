/**
 * The conformance kit: one call generates a vitest suite that checks a source
 * connector keeps the SDK contract (after Meltano's Singer SDK). Built-in
 * connectors use it in their tests; plugin authors run it on theirs.
 *
 * vitest is imported dynamically, so importing the SDK outside a test run
 * never loads it.
 */
import type * as vitest from 'vitest';
import type { z } from 'zod';
import { compareCursorPositions, compareCursorValues } from './cursor.js';
import { formatOrigin } from './origin.js';
import { codeOf } from './guards.js';
import {
  FIELD_TYPES,
  SDK_VERSION,
  type ConnectorLogger,
  type CursorPosition,
  type IncrementalRead,
  type ReadContext,
  type SourceDefinition,
  type SourceRecord,
} from './types.js';

/** What {@link describeSourceConformance} needs to know about the source under test. */
export interface SourceConformanceOptions<Schema extends z.ZodType> {
  /** Options for the source (as a user writes them), or a function returning them once `setup` has run. */
  options: z.input<Schema> | (() => z.input<Schema>);
  /** Directory relative paths resolve against. @default process.cwd() */
  baseDir?: string | (() => string);
  /** Exactly how many records a full read yields. */
  expectedCount?: number;
  /** Fields that must be unique and non-null across a full read. */
  primaryKey?: string[];
  /** Field to run incremental reads on. */
  cursorField?: string;
  /** The source emits records ordered by cursor (then key), so interrupted reads can resume. */
  sorted?: boolean;
  /** Records to take before interrupting a read. @default half of a full read */
  interruptAfter?: number;
  /** Suite title. @default `source conformance: <name>` */
  title?: string;
  setup?: () => void | Promise<void>;
  teardown?: () => void | Promise<void>;
}

const silentLogger: ConnectorLogger = { debug() {}, info() {}, warn() {}, error() {} };

function identityOf(record: SourceRecord, primaryKey: readonly string[] | undefined): string {
  if (primaryKey && primaryKey.length > 0) return primaryKey.map((field) => String(record.data[field] ?? '')).join('\u001f');
  const { stream, file, line, table, key, url } = record.origin;
  return JSON.stringify([stream, file, line, table, key, url]);
}

/** A record's cursor position as the runner would store it. */
function positionOf(record: SourceRecord, primaryKey: readonly string[] | undefined): CursorPosition | undefined {
  if (record.cursor === undefined || record.cursor === null) return undefined;
  const key = primaryKey && primaryKey.length > 0 ? identityOf(record, primaryKey) : record.origin.key;
  return key === undefined ? { value: record.cursor } : { value: record.cursor, key };
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  if (error === signal.reason) return true;
  if (!(error instanceof Error)) return false;
  return error.name === 'AbortError' || codeOf(error) === 'FERRY_ABORTED';
}

/**
 * Generate a vitest suite checking a source against the SDK contract:
 * the options schema accepts `options`; `discover()` returns at least one
 * stream whose fields use {@link FIELD_TYPES}; `read()` yields records with
 * origins (file and line, table and key, or URL); declared stream keys
 * (`keys()`) name fields the records have; primary keys are unique and
 * non-null; with `cursorField`, records carry cursors and a second read from
 * the saved position repeats none of them; with `sorted` too, cursors never
 * decrease and a read aborted through its signal resumes without gaps.
 *
 * Call it at the top level of a test file: `await describeSourceConformance(source, { options: {...} })`.
 */
export async function describeSourceConformance<Schema extends z.ZodType>(
  definition: SourceDefinition<Schema>,
  config: SourceConformanceOptions<Schema>,
): Promise<void> {
  const runner = await import('vitest');
  const kit: Kit<Schema> = { ...runner, definition, config, ...sourceReader(definition, config) };
  runner.describe(config.title ?? `source conformance: ${definition.name}`, () => {
    if (config.setup) runner.beforeAll(config.setup);
    if (config.teardown) runner.afterAll(config.teardown);
    describeDefinitionChecks(kit);
    describeReadChecks(kit);
    if (config.cursorField) describeIncrementalChecks(kit, config.cursorField);
    if (config.cursorField && config.sorted) describeSortedChecks(kit, config.cursorField);
  });
}

/** What each group of checks needs: vitest, the source under test and its reads. */
interface Kit<Schema extends z.ZodType> extends Pick<typeof vitest, 'it' | 'expect'>, SourceReader<Schema> {
  definition: SourceDefinition<Schema>;
  config: SourceConformanceOptions<Schema>;
}

/** Reads of the source under test; full reads are made once and shared by the checks. */
interface SourceReader<Schema extends z.ZodType> {
  resolveInput(): z.input<Schema>;
  context(signal: AbortSignal, incremental?: IncrementalRead): ReadContext<z.output<Schema>>;
  collect(incremental?: IncrementalRead): Promise<SourceRecord[]>;
  full(): Promise<SourceRecord[]>;
  fullByCursor(): Promise<SourceRecord[]>;
}

function sourceReader<Schema extends z.ZodType>(
  definition: SourceDefinition<Schema>,
  config: SourceConformanceOptions<Schema>,
): SourceReader<Schema> {
  const primaryKey = config.primaryKey;
  const resolveInput = (): z.input<Schema> =>
    typeof config.options === 'function' ? (config.options as () => z.input<Schema>)() : config.options;
  const baseDir = (): string =>
    typeof config.baseDir === 'function' ? config.baseDir() : (config.baseDir ?? process.cwd());
  const context = (signal: AbortSignal, incremental?: IncrementalRead): ReadContext<z.output<Schema>> => ({
    options: definition.options.parse(resolveInput()),
    baseDir: baseDir(),
    syncName: 'conformance',
    logger: silentLogger,
    signal,
    ...(incremental ? { incremental } : {}),
    ...(primaryKey ? { primaryKey } : {}),
  });
  const collect = async (incremental?: IncrementalRead): Promise<SourceRecord[]> => {
    const records: SourceRecord[] = [];
    for await (const record of definition.read(context(new AbortController().signal, incremental))) records.push(record);
    return records;
  };
  let fullRead: Promise<SourceRecord[]> | undefined;
  let cursorRead: Promise<SourceRecord[]> | undefined;
  return {
    resolveInput,
    context,
    collect,
    full: () => (fullRead ??= collect()),
    fullByCursor: () => (cursorRead ??= collect({ cursorField: config.cursorField! })),
  };
}

/** The definition itself: SDK version, options, declared keys, check() and discover(). */
function describeDefinitionChecks<Schema extends z.ZodType>(kit: Kit<Schema>): void {
  const { it, expect, definition, resolveInput, context, full } = kit;
  it('is a source definition for this SDK version', () => {
    expect(definition.kind).toBe('source');
    expect(Math.floor(definition.sdkVersion)).toBe(SDK_VERSION);
    expect(definition.name).toMatch(/^[a-z0-9][a-z0-9_-]*$/);
  });

  it('accepts the example options', () => {
    const parsed = definition.options.safeParse(resolveInput());
    expect(parsed.error?.issues ?? []).toEqual([]);
    if (definition.example !== undefined) {
      expect(definition.options.safeParse(definition.example).error?.issues ?? []).toEqual([]);
    }
  });

  if (definition.keys) {
    it('declares its stream keys without I/O, naming fields the records have', async () => {
      const keys = definition.keys!(definition.options.parse(resolveInput()));
      for (const field of keys.primaryKey ?? []) expect(typeof field === 'string' && field !== '').toBe(true);
      if (keys.cursorField !== undefined) expect(keys.cursorField).not.toBe('');
      const [first] = await full();
      for (const field of keys.primaryKey ?? []) expect(first?.data).toHaveProperty([field]);
    });
  }

  if (definition.check) {
    it('check() passes', async () => {
      await expect(definition.check!(context(new AbortController().signal))).resolves.toBeUndefined();
    });
  }

  it('discovers at least one stream with typed fields', async () => {
    const streams = await definition.discover(context(new AbortController().signal));
    expect(streams.length).toBeGreaterThanOrEqual(1);
    for (const stream of streams) {
      expect(stream.name).not.toBe('');
      const names = stream.fields.map((field) => field.name);
      expect(new Set(names).size).toBe(names.length);
      for (const field of stream.fields) {
        expect(field.name).not.toBe('');
        expect(FIELD_TYPES).toContain(field.type);
      }
      for (const key of [...(stream.primaryKey ?? []), ...(stream.cursorCandidates ?? [])]) expect(names).toContain(key);
      if (stream.estimatedCount !== undefined) {
        expect(Number.isInteger(stream.estimatedCount) && stream.estimatedCount >= 0).toBe(true);
      }
    }
  });
}

/** A full read: records with origins, the expected count, unique primary keys. */
function describeReadChecks<Schema extends z.ZodType>(kit: Kit<Schema>): void {
  const { it, expect, config, full } = kit;
  const primaryKey = config.primaryKey;
  it('reads records that carry their origin', async () => {
    const records = await full();
    expect(records.length).toBeGreaterThan(0);
    if (config.expectedCount !== undefined) expect(records.length).toBe(config.expectedCount);
    for (const record of records) {
      expect(record.data !== null && typeof record.data === 'object' && !Array.isArray(record.data)).toBe(true);
      const { file, line, table, key, url } = record.origin;
      const located =
        (typeof file === 'string' && file !== '' && Number.isInteger(line) && (line ?? 0) >= 1) ||
        (typeof table === 'string' && table !== '' && typeof key === 'string') ||
        (typeof url === 'string' && url !== '');
      expect(located, `origin ${JSON.stringify(record.origin)} names no file:line, table+key or url`).toBe(true);
    }
  });

  it('gives equal data to records whose dataText is equal (when it gives one)', async () => {
    const byText = new Map<string, SourceRecord>();
    for (const record of await full()) {
      if (record.dataText === undefined) continue;
      expect(typeof record.dataText, `${formatOrigin(record.origin)}: dataText is not text`).toBe('string');
      const earlier = byText.get(record.dataText);
      if (earlier) expect(record.data, `${formatOrigin(record.origin)} has the dataText of ${formatOrigin(earlier.origin)}`).toEqual(earlier.data);
      else byText.set(record.dataText, record);
    }
  });

  if (primaryKey && primaryKey.length > 0) {
    it('yields unique, non-null primary keys', async () => {
      const seen = new Map<string, string>();
      for (const record of await full()) {
        for (const field of primaryKey) {
          const value = record.data[field];
          expect(value === undefined || value === null || value === '', `${formatOrigin(record.origin)}: ${field} is empty`).toBe(false);
        }
        const id = identityOf(record, primaryKey);
        expect(seen.get(id), `key ${id} at ${formatOrigin(record.origin)} repeats`).toBeUndefined();
        seen.set(id, formatOrigin(record.origin));
      }
    });
  }
}

/** Incremental reads: every record carries its cursor, and a read from the saved position repeats none. */
function describeIncrementalChecks<Schema extends z.ZodType>(kit: Kit<Schema>, cursorField: string): void {
  const { it, expect, config, full, fullByCursor, collect } = kit;
  const primaryKey = config.primaryKey;
  it('sets the cursor of each record on incremental reads', async () => {
    const records = await fullByCursor();
    expect(records.length).toBe((await full()).length);
    for (const record of records) {
      const value = record.data[cursorField];
      if (value !== undefined && value !== null && value !== '') {
        expect(record.cursor, `${formatOrigin(record.origin)} has no cursor`).not.toBeUndefined();
        expect(record.cursor).not.toBeNull();
      }
    }
  });

  it('repeats nothing when read again from the saved position', async () => {
    const first = await fullByCursor();
    const positions = first.map((record) => positionOf(record, primaryKey)).filter((p): p is CursorPosition => p !== undefined);
    expect(positions.length).toBeGreaterThan(0);
    const after = positions.reduce((max, position) => (compareCursorPositions(position, max) > 0 ? position : max));
    const again = await collect({ cursorField, after });
    // Records without a cursor value cannot be placed, so sources may re-emit them.
    const repeated = again.filter((record) => positionOf(record, primaryKey) !== undefined);
    expect(repeated.map((record) => formatOrigin(record.origin))).toEqual([]);
  });
}

/** Sorted sources: cursors never go back, and a read aborted through its signal resumes without gaps. */
function describeSortedChecks<Schema extends z.ZodType>(kit: Kit<Schema>, cursorField: string): void {
  const { it, expect, config, definition, context, fullByCursor, collect } = kit;
  const primaryKey = config.primaryKey;
  it('emits cursors in non-decreasing order', async () => {
    let previous: string | number | undefined;
    for (const record of await fullByCursor()) {
      if (record.cursor === undefined || record.cursor === null) continue;
      if (previous !== undefined) {
        expect(compareCursorValues(record.cursor, previous), `${formatOrigin(record.origin)} goes back`).toBeGreaterThanOrEqual(0);
      }
      previous = record.cursor;
    }
  });

  it('resumes an interrupted read without gaps', async () => {
    const everything = await fullByCursor();
    const take = config.interruptAfter ?? Math.max(1, Math.floor(everything.length / 2));
    expect(everything.length, 'the interrupt test needs more records than interruptAfter').toBeGreaterThan(take);
    const controller = new AbortController();
    const received: SourceRecord[] = [];
    let stoppedByAbort = false;
    try {
      for await (const record of definition.read(context(controller.signal, { cursorField }))) {
        received.push(record);
        if (received.length === take) controller.abort();
      }
    } catch (error) {
      if (!isAbort(error, controller.signal)) throw error;
      stoppedByAbort = true;
    }
    expect(stoppedByAbort || received.length < everything.length, 'the read ignored its abort signal').toBe(true);
    expect(received.length).toBeLessThan(everything.length);

    const last = [...received].reverse().map((record) => positionOf(record, primaryKey)).find((p) => p !== undefined);
    const rest = await collect(last ? { cursorField, after: last } : { cursorField });
    const union = new Set([...received, ...rest].map((record) => identityOf(record, primaryKey)));
    const expected = new Set(everything.map((record) => identityOf(record, primaryKey)));
    expect([...expected].filter((id) => !union.has(id))).toEqual([]);
    expect(union.size).toBe(expected.size);
  });
}
