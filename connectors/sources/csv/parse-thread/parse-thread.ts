/** A CSV file's values read on a parse thread (parse-worker.ts): the shared ParseThread, started for csv. */
import { ParseThread, threadFromBytesSetting as settingOf } from '../../_shared/parse-thread/parse-thread.js';
import type { CsvParseOptions, CsvThreadInput } from '../parser.js';

/** The size from which a CSV file gets a parse thread, as `FERRY_CSV_PARSE_THREAD` says (see the shared setting). */
export function threadFromBytesSetting(env: NodeJS.ProcessEnv = process.env): number {
  return settingOf('FERRY_CSV_PARSE_THREAD', 'CSV', env);
}

/** Starts parsing `path` on a thread at once; `signal` aborts the read. */
export function startCsvParseThread(path: string, options: CsvParseOptions, signal: AbortSignal): ParseThread<string[]> {
  const input: CsvThreadInput = { path, options };
  return new ParseThread<string[]>({ importMetaUrl: import.meta.url, worker: 'parse-worker', input, format: 'CSV' }, signal);
}
