/**
 * What a JSON Lines line holds, the same in the run's thread and on a parse
 * thread (parse-worker.ts): its value's text, and the value as a record's
 * data (an object as it is, anything else under `value`; with
 * `includeFileName`, `_file` added).
 */
import { isRecord } from '../../../src/sdk/guards.js';
import type { SourceData, SourceValue } from '../../../src/sdk/types.js';
import type { TextLine } from '../_shared/line-splitter.js';

/**
 * The line's value text: a BOM on line 1 is not text; undefined for a blank
 * line (white space as `trim()` sees it), which is no record. A line that
 * starts as a JSON object, array or string is not trimmed to find out.
 */
export function valueText({ line, text }: TextLine): string | undefined {
  const body = line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = body.charCodeAt(0);
  if (first === 0x7b || first === 0x5b || first === 0x22) return body;
  return body.trim() === '' ? undefined : body;
}

/** `file`: the relative path to add as `_file`, or undefined when the option is off. */
export function recordData(value: unknown, file: string | undefined): SourceData {
  // JSON.parse output is plain data, so it fits SourceValue.
  const base: SourceData = isRecord(value) ? (value as SourceData) : { value: value as SourceValue };
  return file === undefined ? base : { ...base, _file: file };
}
