/**
 * A CSV parse thread: reads one file and posts its rows (arrays of values)
 * to the reader in batches (see parse-thread-worker.ts). Reading, decoding
 * and parsing a large file is most of what a no-op re-run does; here it
 * runs beside the work that follows it instead of before it.
 */
import { workerData } from 'node:worker_threads';
import { utf8CheckFor } from '../../_shared/utf8-check.js';
import { serveRows } from '../../_shared/parse-thread/parse-thread-worker.js';
import { openCsvParser, type CsvThreadInput } from '../parser.js';

const { path, options } = workerData as CsvThreadInput;
const check = utf8CheckFor(options.encoding);
serveRows<string[]>(openCsvParser(path, options, { check }), check);
