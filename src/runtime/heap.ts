/**
 * ferry's default for V8's old-generation growth. A run allocates fast and
 * keeps little (about 30 MB live while pushing), but what a batch holds for
 * a few tens of milliseconds survives two scavenges and is promoted; V8 then
 * lets the old generation grow to four times the live size before a full
 * collection, so peak RSS rose with the length of the run (240 MB for 200k
 * rows against 190 MB for 20k). Growing by half the live size instead keeps
 * the peak flat and lower (about 170 MB) for some 5-10 % more CPU in the
 * collector. docs/deploy.md describes it and how to change it.
 */
import { setFlagsFromString } from 'node:v8';

/** Old generation may grow to (1 + this/100) × the live heap before a full collection. */
export const DEFAULT_HEAP_GROWING_PERCENT = 50;

/**
 * Sets the growth factor unless the process was started with its own
 * (`--heap-growing-percent` on node's command line; node refuses it in
 * NODE_OPTIONS, which is looked at all the same).
 * `FERRY_HEAP_GROWING_PERCENT` overrides the default; 0 leaves V8's own
 * heuristics. Returns the percentage in effect, or undefined when left alone.
 *
 * Also turns V8's allocation-site pretenuring off (unless the command line
 * says otherwise). A run holds each batch of records for a moment, long
 * enough that most of them are alive at a young-generation collection; V8
 * then decides that the sites allocating records, their values and their
 * units make long-lived objects and allocates them straight in the old
 * generation. Every record then becomes old-generation garbage, collected by
 * full collections far more often than a run's live data needs
 * (docs/performance.md has the measurement).
 */
export function applyHeapDefaults(
  env: NodeJS.ProcessEnv = process.env,
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = setFlagsFromString,
): number | undefined {
  const given = (flag: RegExp): boolean => [...execArgv, env.NODE_OPTIONS ?? ''].some((arg) => flag.test(arg));
  if (!given(/--(no[-_])?allocation[-_]site[-_]pretenuring/)) setFlags('--no-allocation-site-pretenuring');
  if (given(/--heap[-_]growing[-_]percent/)) return undefined;
  const wanted = env.FERRY_HEAP_GROWING_PERCENT === undefined || env.FERRY_HEAP_GROWING_PERCENT === '' ? DEFAULT_HEAP_GROWING_PERCENT : Number(env.FERRY_HEAP_GROWING_PERCENT);
  if (!Number.isInteger(wanted) || wanted <= 0) return undefined;
  setFlags(`--heap-growing-percent=${wanted}`);
  return wanted;
}
