// Preloaded into a `ferry run` the bench measures (node --import): when the
// process exits, writes its peak resident set (the kernel's VmHWM, not a
// sample) to the file FERRY_BENCH_PEAK_FILE names. Plain JavaScript, so the
// process it measures loads nothing a user's `ferry run` does not.
import { readFileSync, writeFileSync } from 'node:fs';

process.on('exit', () => {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  writeFileSync(process.env.FERRY_BENCH_PEAK_FILE, JSON.stringify({ peakRssMb: Number(kb) / 1024 }));
});
