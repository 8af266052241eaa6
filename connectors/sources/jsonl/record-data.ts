/**
 * A JSON value as a record's data, the same in the run's thread and on a
 * parse thread (parse-worker.ts): an object as it is, anything else under
 * `value`; with `includeFileName`, `_file` added.
 */
import { isRecord } from '../../../src/sdk/guards.js';
import type { SourceData, SourceValue } from '../../../src/sdk/types.js';

/** `file`: the relative path to add as `_file`, or undefined when the option is off. */
export function recordData(value: unknown, file: string | undefined): SourceData {
  // JSON.parse output is plain data, so it fits SourceValue.
  const base: SourceData = isRecord(value) ? (value as SourceData) : { value: value as SourceValue };
  return file === undefined ? base : { ...base, _file: file };
}
