import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { z } from 'zod';
import { isFerryError } from '../../../src/sdk/index.js';
import type { BufferedIterator, IncrementalRead, ReadContext, ReadPartition, SkippedInput, SourceDefinition, SourceRecord } from '../../../src/sdk/index.js';

export interface Captured {
  warnings: string[];
  /** What the source reported through `reportSkipped`. */
  skipped?: SkippedInput[];
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `ferry-${prefix}-`));
}

export function readContext<Schema extends z.ZodType>(
  source: SourceDefinition<Schema>,
  input: z.input<Schema>,
  extra: { baseDir: string; incremental?: IncrementalRead; signal?: AbortSignal; captured?: Captured; primaryKey?: string[]; partition?: ReadPartition },
): ReadContext<z.output<Schema>> {
  const warn = (obj: object | string, msg?: string): void => {
    extra.captured?.warnings.push(msg ?? String(obj));
  };
  return {
    options: source.options.parse(input),
    baseDir: extra.baseDir,
    syncName: 'test-sync',
    logger: { debug() {}, info() {}, warn, error() {} },
    signal: extra.signal ?? new AbortController().signal,
    reportSkipped: (input) => extra.captured?.skipped?.push(input),
    ...(extra.incremental ? { incremental: extra.incremental } : {}),
    ...(extra.primaryKey ? { primaryKey: extra.primaryKey } : {}),
    ...(extra.partition ? { partition: extra.partition } : {}),
  };
}

export async function readAll<Schema extends z.ZodType>(
  source: SourceDefinition<Schema>,
  input: z.input<Schema>,
  extra: Parameters<typeof readContext>[2],
): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for await (const record of source.read(readContext(source, input, extra))) records.push(record);
  return records;
}

/** What `fn` throws, or a failure when it returns. */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** The rejection of a promise, or a failure when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A temporary folder holding `files`. */
export function fixture(prefix: string, files: Record<string, string | Buffer>): string {
  const dir = tempDir(prefix);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

export interface InterleavedRead {
  records: SourceRecord[];
  /** How many records came through takeBuffered. */
  taken: number;
  /** Where the read failed, if it did: the error and whether takeBuffered threw it. */
  failure?: { error: unknown; fromTake: boolean };
}

/** Take sizes and next() calls (0), in turn: odd sizes, 1, one larger than a batch. */
const TAKE_PATTERN = [5, 0, 1, 300, 0, 0, 33, 2, 0, 7];

/** Reads `records` to the end (or its failure): with next() alone, or with takeBuffered interleaved in a fixed pattern. */
export async function readInterleaved(records: AsyncIterable<SourceRecord>, interleave: boolean): Promise<InterleavedRead> {
  const iterator = records[Symbol.asyncIterator]() as BufferedIterator<SourceRecord>;
  const read: SourceRecord[] = [];
  let taken = 0;
  let step = 0;
  let fromTake = false;
  try {
    for (;;) {
      const size = interleave ? TAKE_PATTERN[step++ % TAKE_PATTERN.length]! : 0;
      if (size > 0) {
        expect(iterator.takeBuffered).toBeTypeOf('function');
        fromTake = true;
        const batch = iterator.takeBuffered!(size);
        fromTake = false;
        expect(batch.length).toBeLessThanOrEqual(size);
        read.push(...batch);
        taken += batch.length;
        if (batch.length > 0) continue;
      }
      const result = await iterator.next();
      if (result.done) break;
      read.push(result.value);
    }
  } catch (error) {
    return { records: read, taken, failure: { error, fromTake } };
  }
  return { records: read, taken };
}

/**
 * A read that failed part-way hands over the same rows, up to `lastId`, with
 * takeBuffered interleaved as with next() alone, then the same read failure.
 */
export function expectSameFailure(plain: InterleavedRead, interleaved: InterleavedRead, lastId: string): void {
  expect(plain.records.at(-1)?.data.id).toBe(lastId);
  expect(interleaved.records).toEqual(plain.records);
  expect(isFerryError(interleaved.failure?.error) && interleaved.failure.error.code).toBe('FERRY_SOURCE_READ_FAILED');
  expect((interleaved.failure?.error as Error).message).toBe((plain.failure?.error as Error).message);
}

/** What a file parser gave: the rows as `pick` shows them, its failure's message, what it reported skipped and warned. */
export interface ParseOutcome {
  rows: unknown[];
  failure: string | undefined;
  skipped: SkippedInput[];
  warnings: string[];
}

/** The context a file parser is given, capturing its warnings and skips. */
export interface CapturingParseContext {
  signal: AbortSignal;
  syncName: string;
  logger: { debug(): void; info(): void; error(): void; warn(obj: unknown, message?: string): void };
  reportSkipped: (input: SkippedInput) => void;
}

/** Reads every row `open` gives under a capturing context, and the error that ended the read, if one did. */
export async function parseOutcome<Row>(open: (context: CapturingParseContext) => AsyncIterable<Row>, pick: (row: Row) => unknown): Promise<ParseOutcome> {
  const skipped: SkippedInput[] = [];
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (_: unknown, message?: string) => void warnings.push(String(message)) };
  const context = { signal: new AbortController().signal, syncName: 's', logger, reportSkipped: (input: SkippedInput) => void skipped.push(input) };
  const rows: unknown[] = [];
  let failure: string | undefined;
  try {
    for await (const row of open(context)) rows.push(pick(row));
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  return { rows, failure, skipped, warnings };
}
