// Preloaded into a process the bench measures (node --import), a `ferry run`
// or the reference client: when the process exits, writes to the file
// FERRY_BENCH_FIGURES names its peak resident set (the kernel's VmHWM, not a
// sample), its CPU time, and how long it lived (from process start, before
// this preload ran). Plain JavaScript, so the process it measures loads
// nothing a user's `ferry run` does not.
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

process.on('exit', () => {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  const cpu = process.cpuUsage();
  writeFileSync(process.env.FERRY_BENCH_FIGURES, JSON.stringify({ peakRssMb: Number(kb) / 1024, cpuUs: cpu.user + cpu.system, lifeMs: performance.now() }));
});
