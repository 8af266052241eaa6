import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import type { IncrementalRead, ReadContext, ReadPartition, SkippedInput, SourceDefinition, SourceRecord } from '../../../src/sdk/index.js';

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

/** The rejection of a promise, or a failure when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
