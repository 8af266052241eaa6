/**
 * Text-format type parsers for the postgres source: everything that would
 * lose precision through a JS number or Date is kept as exact text (int8
 * beyond 2^53, numeric, timestamps with microseconds), dates stay YYYY-MM-DD
 * with no time-zone shift, and bytea becomes base64.
 */
import pg from 'pg';
import type { CustomTypesConfig } from 'pg';
import { intValue, isoTimestamp } from '../_sql/values.js';

const { types } = pg;

type Parser = (text: string) => unknown;

const byteaParser = types.getTypeParser(17, 'text') as (text: string) => Buffer;
const base64 = (text: string): string => byteaParser(text).toString('base64');
const asText = (text: string): string => text;
const float = (text: string): number | string => {
  const n = Number(text);
  // NaN and ±Infinity have no JSON form; keep the database's spelling.
  return Number.isFinite(n) ? n : text;
};
// pg-types exports { create } at runtime, whatever its typings say.
const arrayParser = types.arrayParser as unknown as {
  create(source: string, transform: (entry: string | null) => unknown): { parse(): unknown[] };
};
const array = (element: Parser): Parser => (text) =>
  arrayParser.create(text, (entry) => (entry === null ? null : element(entry))).parse();

/** OIDs from pg_type of the built-in types parsed differently from pg's defaults. */
const PARSERS = new Map<number, Parser>([
  [20, intValue], // int8
  [1016, array(intValue)], // int8[]
  [1700, asText], // numeric
  [1231, array(asText)], // numeric[]
  [700, float], // float4
  [701, float], // float8
  [1114, isoTimestamp], // timestamp
  [1115, array(isoTimestamp)],
  [1184, isoTimestamp], // timestamptz
  [1185, array(isoTimestamp)],
  [1082, asText], // date
  [1182, array(asText)],
  [1186, asText], // interval
  [1187, array(asText)],
  [17, base64], // bytea
  [1001, array(base64)],
]);

export const typeParsers: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') {
      const parser = PARSERS.get(oid);
      if (parser) return parser;
    }
    return types.getTypeParser(oid, format) as unknown;
  }) as CustomTypesConfig['getTypeParser'],
};
