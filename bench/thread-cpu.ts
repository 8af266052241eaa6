/**
 * CPU time of the calling thread alone (Linux: /proc/thread-self/schedstat),
 * without the GC helper and libuv threads that `process.cpuUsage()` adds in:
 * on a 2-core machine the main thread is what bounds a single-threaded
 * pipeline. NaN elsewhere.
 */
import { readFileSync } from 'node:fs';

function schedstat(field: 0 | 1): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[field]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** Ms this thread has run on a CPU. */
export const threadCpuMs = (): number => schedstat(0);

/** Ms this thread was runnable but waiting for a CPU. */
export const threadRunQueueMs = (): number => schedstat(1);
